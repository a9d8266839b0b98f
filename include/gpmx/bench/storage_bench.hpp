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
#include "gpmx/exec/gpu_session.hpp"

namespace gpmx::bench {

struct storage_bench_options {
  std::string dir;                       // where the backing file goes (empty: the temporary directory)
  std::uint64_t file_mib = 256;          // backing file size
  std::vector<std::string> patterns{"randread"};  // fio's names: randread, read, randwrite, write
  std::vector<std::uint32_t> block_bytes{4096, 512};
  std::vector<std::uint32_t> threads{256, 1024, 4096};  // kernel threads issuing reads
  std::uint32_t queues = 4;              // queue pairs
  std::uint32_t depth = 256;             // entries per queue
  std::uint32_t ring_entries = 256;      // the controllers' reads in flight at most (together)
  std::uint32_t controllers = 1;         // controllers (host threads) serving the device, queue pairs dealt among them
  std::uint32_t reads_per_thread = 32;
  unsigned workers = 0;                  // executor workers (0: default)
  unsigned repeat = 3;
  bool fio = true;                       // also run fio (when installed)
  bool hit_path = true;                  // also time array reads that hit the cache
  bool stages = false;                   // sample where the queue rows' commands wait (stage_* metrics)
  // The timed schedule (gpmx sim's GPU, sbrp-table1) with a device model
  // (device_timing.hpp) instead of the above: 512-byte random reads.
  std::string timed_device;              // empty: not timed
  std::vector<std::uint32_t> timed_devices{1, 2, 4};
  std::vector<std::uint32_t> timed_threads{64, 256, 1024, 4096};
  std::uint32_t timed_reads = 2;         // reads per thread
  std::function<void(const std::string&)> progress;
  // Kernels on this GPU (null: the cpu executor): the controller then serves
  // the GPU's queues from a host thread while each kernel runs.
  const gpu_session* gpu = nullptr;
};

// Rows "queues_<pattern>_<bytes>_t<threads>" (metrics iops, mib_per_s,
// in_flight_max, direct) and, per pattern and block size,
// "fio_<pattern>_<bytes>" (iops at the same commands in flight: the median
// of `repeat` runs, iops_min, iops_max). The runs go in rounds, one fio
// run then one queue run per thread count, and a queue row's ratio_vs_fio
// is the median over rounds of its run against that round's fio run
// (ratio_vs_fio_min, ratio_vs_fio_max: the spread). Where the file's
// device has request counters, both kinds of row report
// disk_kib_per_request: the median over rounds of the mean size of the
// requests (of the pattern's direction) that reached the device during the
// run, after the block layer merged neighbours. mean_in_flight: the
// commands the file system had in flight on average during a run (queue
// rows: the controllers' summed io_uring time over the run's time; fio:
// its IOPS times its mean latency); then "array_hit_<coalesced|alone|warp_cursor>"
// (reads_per_s, reads_per_s_per_worker) for an array the cache holds whole.
// With timed_device: rows "timed_<device>_d<n>_t<threads>" instead, with
// simulated_iops, little_bound (min(n x IOPS, threads / (latency + 1/IOPS)),
// one command in flight per thread), ratio_vs_bound, and the mean device time
// per command against the configured latency.
std::vector<result> run_storage_benchmarks(const storage_bench_options& o);

}  // namespace gpmx::bench
