#pragma once
// Benchmark results: one row per benchmark, printed as a table or JSON.
#include <chrono>
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

// Runs f `warm` times unmeasured, then `repeat` times; each run's ns.
template <class F>
std::vector<double> time_runs(unsigned warm, unsigned repeat, F&& f) {
  for (unsigned i = 0; i < warm; ++i) f();
  std::vector<double> runs;
  for (unsigned i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    runs.push_back(double(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count()));
  }
  return runs;
}

// A row with its median taken from the runs.
result make_result(std::string name, std::vector<double> runs, std::string note);

nlohmann::json to_json(const std::vector<result>& results);
std::string to_table(const std::vector<result>& results);

}  // namespace gpmx::bench
