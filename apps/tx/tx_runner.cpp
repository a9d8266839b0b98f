#include "tx/tx_runner.hpp"

#include <atomic>

namespace gpmx::apps::tx {

namespace {
// words_: [0] sequence counter, [1] persisted prefix.
constexpr std::size_t seq_word = 0, prefix_word = 1;
}  // namespace

tx_device::tx_device(const tx_shape& s, std::span<const std::uint32_t> home, bool host_monitor_beside_gpu,
                     const stm::log_geometry& g)
    : shape_(s),
      data_(home.begin(), home.end()),
      status_(s.committer_count(), 0),
      words_(2, 0),
      // Only committers that end with a durable fence read the flags:
      // without one nobody tracks durability (no array, no stores to it).
      durable_(s.durable_fence ? stm::durable_words(std::uint32_t(s.transactions_per_batch())) : 0, 0),
      orecs_(home.size(), 0),
      counters_(std::uint64_t(s.blocks) * stm::counters_per_block, 0),
      published_(host_monitor_beside_gpu ? std::uint64_t(s.blocks) * stm::published_per_block : 0, 0),
      // Beside a GPU, 64 KiB: a granule of managed-memory migration to itself.
      switch_(host_monitor_beside_gpu ? 16384 : 1, 0),
      reclaimed_(g.wraps ? g.streams() : 0, 0),
      durable_end_(g.wraps ? g.streams() : 0, 0) {}

stm::tx_log tx_device::log_of(const stm::tx_heap& heap) {
  stm::tx_log log = heap.log();
  if (log.geometry.wraps) {
    // A launch starts an epoch: its rings are empty from position 0.
    std::fill(reclaimed_.begin(), reclaimed_.end(), 0u);
    std::fill(durable_end_.begin(), durable_end_.end(), 0u);
    log.reclaimed = reclaimed_.data();
    log.durable_end = durable_end_.data();
  }
  return log;
}

stm::tx_shared tx_device::prepare(std::uint64_t applied_upto, bool helpers_on) {
  std::fill(durable_.begin(), durable_.end(), 0u);
  words_[seq_word] = std::uint32_t(applied_upto);
  words_[prefix_word] = std::uint32_t(applied_upto);
  std::uint32_t* const helpers = switch_.data();
  *helpers = helpers_on ? 1u : 0u;
  stm::tx_shared s;
  s.data = data_.data();
  s.words = std::uint32_t(data_.size());
  s.orecs = orecs_.data();
  s.status = status_.data();
  s.seq = &words_[seq_word];
  s.durable = durable_.empty() ? nullptr : durable_.data();
  s.first_seq = std::uint32_t(applied_upto + 1);
  s.seq_capacity = std::uint32_t(shape_.transactions_per_batch());
  s.persisted_prefix = &words_[prefix_word];
  s.helpers_on = helpers;
  s.counters = counters_.data();
  s.published = published_.empty() ? nullptr : published_.data();
  return s;
}

std::uint64_t tx_device::last_seq() const {
  return words_[seq_word];  // read between launches: the launch's end orders it
}

tx_stats tx_device::stats() const {
  tx_stats out;
  out.occupancy.assign(stm::occupancy_buckets, 0);
  for (std::uint32_t b = 0; b < shape_.blocks; ++b) {
    const std::uint64_t* row = counters_.data() + std::uint64_t(b) * stm::counters_per_block;
    out.commits += row[stm::count_commits];
    out.aborts += row[stm::count_aborts];
    out.preemptions += row[stm::count_preemptions];
    out.direct += row[stm::count_direct];
    out.ring += row[stm::count_ring];
    out.ring_full += row[stm::count_ring_full];
    out.batches += row[stm::count_batches];
    out.drained += row[stm::count_drained];
    out.log_entries += row[stm::count_log_entries];
    out.occupancy_sum += row[stm::count_occupancy_sum];
    out.log_room_waits += row[stm::count_log_room_waits];
    for (std::uint32_t k = 0; k < stm::occupancy_buckets; ++k) out.occupancy[k] += row[stm::tx_counter_count + k];
  }
  return out;
}

double tx_stats::median_occupancy() const {
  std::uint64_t total = 0;
  for (std::uint64_t n : occupancy) total += n;
  if (total == 0) return -1;
  std::uint64_t seen = 0;
  for (std::size_t k = 0; k < occupancy.size(); ++k) {
    seen += occupancy[k];
    if (2 * seen >= total) return (double(k) + 0.5) / double(occupancy.size());
  }
  return 1;
}

std::function<std::uint64_t()> monitor_clock(const cpu::executor& ex) {
  if (ex.options().policy == cpu::schedule::timed)
    return [&ex] { return std::uint64_t(ex.virtual_time() / 1000); };  // picoseconds to nanoseconds
  const auto t0 = std::chrono::steady_clock::now();
  return [t0] {
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  };
}

void throttle_pool(pm::pool& pool, const tx_shape& s) {
  if (s.nvram_mbps == 0) return;
  pool.set_write_throttle(std::make_shared<pm::write_throttle>(double(s.nvram_mbps) * 1e6, s.sector));
}

}  // namespace gpmx::apps::tx
