#pragma once
// The checkpointing workloads (blk, hotspot, cfd, dnn) against the
// CPU-assisted ways to checkpoint them (GPM section 4.2, Figures 7 and 9,
// Table 5), the same state bytes each time:
//   cap_fs: the state copied to a host buffer, written with write(), fsync();
//   cap_mm: the state copied by the host into a mapped pool region and
//           persisted from the host (region::persist: libpmem, or msync);
//   gpmx:   checkpoint::save, a kernel whose threads copy and persist chunks
//           in parallel, then the epoch flip.
// Rows:
//   fs_seq_durable_write: write() of `fs_probe_bytes` in 1 MiB calls over an
//     existing file (as the checkpoints overwrite theirs) + fsync,
//     bytes_per_s: the file system's sequential durable write bandwidth;
//   <w>_compute: one iteration without checkpoints; op_time_s, the default
//     run's iterations times that (the "operation time");
//   <w>_<method>: one checkpoint (runs_ns: each measured checkpoint), with
//     bytes, bytes_per_s, bw_vs_fs_seq (over the row above), share_i1,
//     share_i10, share_i20 (checkpoint time over total time of a run of
//     `iterations` iterations checkpointing every 1, 10, 20), restore_ms and
//     restore_pct_of_op (restore time over operation time, in percent).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/bench/report.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::bench {

struct checkpoint_workload_bench_options {
  std::filesystem::path directory;  // where the files go; empty: the temp directory
  std::vector<std::string> workloads = {"blk", "hotspot", "cfd", "dnn"};
  bool small = false;               // the workloads' small_params (tests), else their defaults
  unsigned repeat = 5;              // measured checkpoints (and restores) per method
  std::uint64_t iterations = 20;    // iterations of each interval run
  std::uint64_t fs_probe_bytes = 64ull << 20;
  pm::durability mode = pm::durability::pmem;  // cap_mm and gpmx
  unsigned workers = 0;             // executor workers; 0: the default
  std::function<void(const std::string&)> progress;  // called before each step
  // The iterations and the gpmx checkpoint's copy on this GPU (the state in
  // kernel memory); CAP-fs and CAP-mm stay host copies, as in GPM.
  const gpu_session* gpu = nullptr;
};

std::vector<result> run_checkpoint_workload_benchmarks(const checkpoint_workload_bench_options& options);

}  // namespace gpmx::bench
