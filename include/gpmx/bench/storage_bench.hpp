#pragma once
// The block benchmark of the storage layer (`gpmx bench storage`): kernel
// threads issue random or sequential reads or writes straight through the
// NVMe queues (no cache)
// to the emulated controller, which serves them with io_uring on a file;
// fio with the io_uring engine on the same file, block size and number of
// reads in flight is the external reference for raw IOPS.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/bench/report.hpp"

namespace gpmx::bench {

struct storage_bench_options {
  std::string dir;                       // where the backing file goes (empty: the temporary directory)
  std::uint64_t file_mib = 256;          // backing file size
  std::vector<std::string> patterns{"randread"};  // fio's names: randread, read, randwrite, write
  std::vector<std::uint32_t> block_bytes{4096, 512};
  std::vector<std::uint32_t> threads{256, 1024, 4096};  // kernel threads issuing reads
  std::uint32_t queues = 4;              // queue pairs
  std::uint32_t depth = 256;             // entries per queue
  std::uint32_t ring_entries = 256;      // the controller's reads in flight at most
  std::uint32_t reads_per_thread = 32;
  unsigned workers = 0;                  // executor workers (0: default)
  unsigned repeat = 3;
  bool fio = true;                       // also run fio (when installed)
  bool hit_path = true;                  // also time array reads that hit the cache
  std::function<void(const std::string&)> progress;
};

// Rows "queues_<pattern>_<bytes>_t<threads>" (metrics iops, mib_per_s,
// in_flight_max, direct) and, per pattern and block size,
// "fio_<pattern>_<bytes>" (iops at the same commands in flight) with each
// queue row's ratio_vs_fio; then "array_hit_<coalesced|alone|warp_cursor>"
// (reads_per_s, reads_per_s_per_worker) for an array the cache holds whole.
std::vector<result> run_storage_benchmarks(const storage_bench_options& o);

}  // namespace gpmx::bench
