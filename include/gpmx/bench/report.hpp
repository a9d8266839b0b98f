#pragma once
// Benchmark results: one row per benchmark, printed as a table or JSON.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace gpmx::bench {

struct result {
  std::string name;
  double median_ns = 0;             // median wall time of one run
  std::vector<double> runs_ns;      // every measured run
  std::map<std::string, double> metrics;  // derived figures (ratio_vs_loop, ...)
  std::string note;                 // what the benchmark does, in a phrase
};

// Median of the values (the mean of the middle two for an even count).
double median(std::vector<double> v);

nlohmann::json to_json(const std::vector<result>& results);
std::string to_table(const std::vector<result>& results);

}  // namespace gpmx::bench
