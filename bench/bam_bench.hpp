#pragma once
// Benchmarks of the BaM workloads (`gpmx bench bam`, docs/bam.md): each
// workload's data prepared once, then every method run on it, side by side
// in one run, each run starting with nothing of the data in the OS page
// cache. The first run of every method is verified against the host.
//   graph: BFS and CC with no cache, naive cache, coalesced, reference
//          reuse, and the page-fault baseline (the paper's Figure 8)
//   query: Q0-Q5 through the cache, tiled by the host, and page-faulted:
//          time and I/O amplification (Figures 12 and 14)
//   vectoradd: through the cache against tiling with overlapped writes
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"
#include "gpmx/exec/gpu_session.hpp"

namespace gpmx::bench {

struct bam_bench_options {
  std::filesystem::path dir;           // where the device files go; empty: the temporary directory
  std::vector<std::string> parts;      // graph, query, vectoradd; empty: all
  unsigned repeat = 3;
  unsigned workers = 0;
  bool small = false;                  // the workloads' test sizes
  std::uint64_t graph_nodes = 1u << 16;
  std::uint64_t graph_cache_kib = 512;
  std::uint64_t graph_threads = 1024;
  unsigned uncached_repeat = 1;        // the no-cache method is one I/O per edge: slow
  std::uint64_t rows = 1u << 22;
  std::uint64_t elements = 1u << 22;
  std::uint64_t controllers = 1;       // emulated controllers per device (each a host thread)
  std::function<void(const std::string&)> progress;
  // Kernels on this GPU (null: the cpu executor). The mmap rows are left
  // out, with a progress line saying why, where the GPU cannot fault in a
  // file mapping's pages.
  const gpu_session* gpu = nullptr;
};

// Rows "<workload>[_q<k>]_<method>" with the run's median time and metrics:
// operations_per_second, bytes_read, bytes_written, io_amplification
// (bytes read / bytes used), io_commands, cache hits and misses, and the
// ratios the paper reports: speedup_vs_none, speedup_vs_naive,
// speedup_vs_tiling, speedup_vs_mmap, traffic_vs_bam (tiling and mmap rows).
std::vector<result> run_bam_benchmarks(const bam_bench_options& o);

}  // namespace gpmx::bench
