#pragma once
// Benchmarks of the persistent-memory layer: HCL against conventional
// logging, and the cost of one dfence / gpm_persist after writing 1, 8 and
// 64 cache lines under each durability setting, on tmpfs and on disk.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"
#include "gpmx/exec/gpu_session.hpp"

namespace gpmx::bench {

struct pm_bench_options {
  unsigned repeat = 5;
  std::vector<std::uint64_t> log_threads{1024, 8192, 65536, 1u << 20};
  std::string log_durability = "msync";
  std::filesystem::path shm_dir = "/dev/shm";  // skipped when missing
  std::filesystem::path disk_dir;              // empty: the system's temporary directory
  unsigned persist_iterations = 2000;          // fences timed per figure
  std::function<void(const std::string&)> progress;
  const gpu_session* gpu = nullptr;  // kernels on this GPU instead of the cpu executor
};

std::vector<result> run_log_benchmarks(const pm_bench_options& o);
std::vector<result> run_persist_benchmarks(const pm_bench_options& o);

}  // namespace gpmx::bench
