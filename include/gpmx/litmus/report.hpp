#pragma once
// Rendering check results: a verdict table for people, JSON for tools.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpmx/litmus/check.hpp"

namespace gpmx::litmus {

std::string format_table(const std::vector<CheckResult>& results);
// Witness executions of every illegal verdict, and machine outcomes that break the theorem.
std::string format_details(const Program& p, const CheckResult& r);
nlohmann::json to_json(const Program& p, const CheckResult& r);

}  // namespace gpmx::litmus
