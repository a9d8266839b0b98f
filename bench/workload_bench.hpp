#pragma once
// Benchmarks of the recoverable workloads (docs/benchmarks.md):
// throughput in both styles, bytes persisted against the CPU-assisted
// baseline (CAP-mm), and restoration latency after a crash in a batch.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"
#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::bench {

struct workload_bench_options {
  std::vector<std::string> workloads;  // empty: every registered workload
  unsigned repeat = 3;                 // runs per figure (median reported)
  std::filesystem::path dir;           // where the files go; empty: the temporary directory
  pm::durability mode = pm::durability::msync;
  unsigned workers = 0;                // executor workers; 0: default
  bool small = false;                  // the workloads' test sizes instead of their defaults
  std::function<void(const std::string&)> progress;
  const gpu_session* gpu = nullptr;    // kernels on this GPU (throughput, amplification)
  bool restoration_on_gpu = false;     // restoration: each child opens its own GPU session
};

// Rows "<w>_epoch" and "<w>_sbrp": median run time of the workload's default
// parameters, with operations_per_second, bytes_persisted and (sbrp row)
// sbrp_vs_epoch, the ratio of throughputs.
std::vector<result> run_workload_throughput(const workload_bench_options& o);

// Rows "<w>_cap_mm" for workloads with a CAP-mm baseline: bytes each
// persisted, amplification = CAP-mm bytes / gpmx bytes, and time of both.
std::vector<result> run_write_amplification(const workload_bench_options& o);

// Rows "<w>_restore": the longest recovery over up to 8 crash points spread
// over the last batch (each run SIGKILLed there in a child), as a share of
// one batch's run time. Call before this process starts any thread or
// touches a GPU: it forks. On a GPU, whose kernels make no crash point the
// host sees, the 8 kills come at delays spread over a batch's time after
// the last batch's first crash point, so they land inside kernels.
std::vector<result> run_restoration_latency(const workload_bench_options& o);

}  // namespace gpmx::bench
