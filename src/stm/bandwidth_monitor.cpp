#include "gpmx/stm/bandwidth_monitor.hpp"

#include <algorithm>
#include <atomic>

namespace gpmx::stm {

bandwidth_monitor::bandwidth_monitor(const tx_shared& s, std::uint32_t blocks, monitor_options o,
                                     std::function<std::uint64_t()> now_ns)
    : s_(s), blocks_(blocks), o_(o), now_(std::move(now_ns)), last_bytes_(blocks, 0), last_rate_(blocks, 0) {
  start_ = slice_start_ = now_();
  on_ = std::atomic_ref<std::uint32_t>(*s_.helpers_on).load() != 0;
  for (std::uint32_t b = 0; b < blocks_; ++b) last_bytes_[b] = persisted_bytes(b);
}

std::uint64_t bandwidth_monitor::persisted_bytes(std::uint32_t block) const {
  const auto load = [](std::uint64_t& w) { return std::atomic_ref<std::uint64_t>(w).load(std::memory_order_relaxed); };
  std::uint64_t entries = 0;
  if (s_.published != nullptr) {
    std::uint64_t* row = s_.published + std::uint64_t(block) * published_per_block;
    entries = load(row[0]) + load(row[1]);
  } else {
    std::uint64_t* row = s_.counters + std::uint64_t(block) * counters_per_block;
    entries = load(row[count_drained]) + load(row[count_log_entries]);
  }
  // Published values may arrive out of order: never less than seen before.
  return std::max(entries * sizeof(std::uint64_t), last_bytes_[block]);
}

agent::step_result bandwidth_monitor::step() {
  const std::uint64_t now = now_();
  if (now - slice_start_ < o_.slice_ns) return step_result::idle;
  const double seconds = double(now - slice_start_) * 1e-9;
  slice_start_ = now;
  ++slices_;
  // Each local monitor adds the change of its rate to the global one.
  for (std::uint32_t b = 0; b < blocks_; ++b) {
    const std::uint64_t bytes = persisted_bytes(b);
    const double rate = double(bytes - last_bytes_[b]) / seconds;
    global_ += rate - last_rate_[b];
    last_rate_[b] = rate;
    last_bytes_[b] = bytes;
  }
  slice_history_.push_back({seconds, global_});
  bool change = false;
  if (global_ > o_.threshold_bytes_per_s) {
    below_ = 0;
    change = !on_;
  } else if (on_ && ++below_ >= o_.off_after) {
    change = true;
  }
  if (on_) ++slices_on_;
  if (!change) return step_result::idle;
  on_ = !on_;
  below_ = 0;
  std::atomic_ref<std::uint32_t>(*s_.helpers_on).store(on_ ? 1u : 0u, std::memory_order_relaxed);
  switches_.push_back({now - start_, on_, global_});
  return step_result::progressed;
}

}  // namespace gpmx::stm
