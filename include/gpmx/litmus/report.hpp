#pragma once
// Rendering check results: a verdict table for people, JSON for tools.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpmx/litmus/check.hpp"

namespace gpmx::litmus {

std::string format_table(const std::vector<check_result>& results);
// witness executions of every illegal verdict, and machine outcomes that break the theorem.
std::string format_details(const program& p, const check_result& r);
nlohmann::json to_json(const program& p, const check_result& r);

}  // namespace gpmx::litmus
