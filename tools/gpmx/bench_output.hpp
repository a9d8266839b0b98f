#pragma once
// How every gpmx bench subcommand prints: a table, or JSON, and optionally
// the JSON into a file too.
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"

namespace gpmx::cli {

void print_results(const std::vector<bench::result>& results, bool json, const std::string& out);

}  // namespace gpmx::cli
