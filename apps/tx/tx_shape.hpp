#pragma once
// What every transaction benchmark takes (apps/tx): the grid, the
// transactions each committer runs per batch, how records become durable
// (helpers off, on, or switched by the bandwidth monitor), the persistence
// buffer, and the emulated NVRAM bandwidth.
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/workload.hpp"
#include "gpmx/stm/log_layout.hpp"

namespace gpmx::apps::tx {

enum class helper_mode : std::uint32_t { off = 0, on = 1, adaptive = 2 };
std::string_view to_string(helper_mode m);

struct tx_shape {
  std::uint32_t blocks = 0;
  std::uint32_t committers = 0;    // per block, a multiple of 32
  std::uint32_t per_thread = 0;    // transactions per committer per batch
  std::uint32_t batches = 0;       // launches; the log is truncated after each
  helper_mode helpers = helper_mode::off;
  std::uint32_t ring = 0;          // persistence buffer entries per block
  std::uint64_t nvram_mbps = 0;    // emulated NVRAM write bandwidth, MB/s (0: the pool's own)
  std::uint32_t sector = 0;        // bytes a throttled write is charged in
  std::uint64_t threshold_mbps = 0;  // adaptive: helpers on above this persistence bandwidth
  std::uint32_t slice_us = 0;      // adaptive: the monitor's time slice
  bool durable_fence = false;      // each committer waits for its last record to be durable
  std::uint64_t log_entries = 0;   // entries per log stream, a ring truncated while kernels run (0: a launch's)
  std::uint64_t seed = 0;

  std::uint32_t committer_count() const { return blocks * committers; }
  std::uint64_t transactions_per_batch() const { return std::uint64_t(committer_count()) * per_thread; }
  std::uint64_t transactions() const { return transactions_per_batch() * batches; }
  std::uint32_t block_threads() const { return committers + (helpers == helper_mode::off ? 0 : 32); }
};

// The parameters every benchmark takes, after its own (a parameter the
// benchmark lists itself keeps its own default and help).
std::vector<param_spec> with_tx_parameters(std::vector<param_spec> own, std::uint32_t per_thread);
// Reads and checks them; throws config_error naming the workload and the
// bad parameter. max_record_writes: the most words one transaction writes.
tx_shape tx_shape_of(std::string_view workload, const params& p);
// The log streams a shape needs for records of at most max_writes words:
// each holds a whole launch's records, or with log_entries every stream is
// a ring of that many entries. Throws config_error naming the workload and
// log_entries when a ring is too small to make progress (log_truncator.hpp).
stm::log_geometry log_geometry_of(std::string_view workload, const tx_shape& s, std::uint32_t max_writes);

}  // namespace gpmx::apps::tx
