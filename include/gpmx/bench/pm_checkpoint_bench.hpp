#pragma once
// Checkpoint throughput (issue: persistent memory): checkpoint::save of a
// group against a plain memcpy of the same bytes into a region of the same
// kind of pool file and one persist of the whole range, on the same
// durability setting. Goal: save at least 0.8x the plain copy's bytes/s.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/bench/report.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::bench {

struct checkpoint_bench_options {
  std::filesystem::path directory;        // where the pool files go; empty: the temp directory
  std::uint64_t bytes = 64ull << 20;      // one checkpoint (a group's data)
  std::uint32_t elements = 4;             // buffers the bytes are split into
  unsigned repeat = 5;                    // measured runs per benchmark
  pm::durability mode = pm::durability::pmem;
  unsigned workers = 0;                   // executor workers; 0: the executor's default
  std::function<void(const std::string&)> progress;  // called before each benchmark
  // The save's copy on this GPU (the buffers in kernel memory); the plain
  // copy stays a host memcpy, as CAP's host-side copy is.
  const gpu_session* gpu = nullptr;
};

// Two rows: "pm_plain_copy_persist" and "pm_checkpoint_save", each with
// metrics bytes and bytes_per_s; the second also ratio_vs_plain (its
// bytes/s over the plain copy's) and workers. The files are removed after.
std::vector<result> run_checkpoint_benchmarks(const checkpoint_bench_options& options);

}  // namespace gpmx::bench
