#pragma once
// Benchmarks of the cpu executor (issue: foundation): barrier-free kernel vs
// a plain loop, block reduction barriers, warp shuffles, 1 -> 2 workers.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"

namespace gpmx::bench {

struct exec_bench_options {
  unsigned repeat = 5;                           // measured runs per benchmark
  std::uint64_t fill_threads = 1ull << 24;       // barrier-free kernel
  std::uint64_t reduce_elements = 1ull << 24;    // block reduction
  std::uint64_t shuffle_threads = 1ull << 22;    // warp shuffle reduction
  unsigned max_workers = 2;                      // speed-up measured 1 -> this
  std::function<void(const std::string&)> progress;  // called before each benchmark
};

std::vector<result> run_exec_benchmarks(const exec_bench_options& options);

}  // namespace gpmx::bench
