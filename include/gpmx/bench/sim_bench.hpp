#pragma once
// The simulator's own speed (`gpmx sim --bench`): a memory-bound and a
// compute-bound kernel in the timed mode, reported as simulated warp
// instructions per second of wall time and as slowdown (wall time over
// simulated time). GPGPU-Sim's slowdown is about 480,000x.
#include <cstdint>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"
#include "gpmx/sim/config.hpp"

namespace gpmx::bench {

struct sim_bench_options {
  std::uint32_t warps = 960;       // warps of each kernel: 30 SMs x 32 warps (1024 threads), one wave
  std::uint32_t iterations = 64;   // loads per thread (memory-bound), work blocks per thread (compute-bound)
  unsigned repeat = 3;             // measured runs per kernel (median reported)
  // Kernels to run, by row name (memory_bound, memory_copy, spin,
  // compute_bound); empty: all. One kernel alone is what a profile wants.
  std::vector<std::string> only;
};

// The row names run_sim_bench knows, in the order it runs them.
const std::vector<std::string>& sim_bench_kernels();

// Rows "memory_bound", "memory_copy", "spin" and "compute_bound" (those in
// `o.only`, if any; a name it does not know throws config_error); metrics: warp_instructions
// (operations and declared work), operation_instructions (memory,
// synchronization and ordering operations), simulated_ns,
// warp_instructions_per_s, operation_instructions_per_s, slowdown.
std::vector<result> run_sim_bench(const sim::sim_config& c, const sim_bench_options& o, bool progress);

}  // namespace gpmx::bench
