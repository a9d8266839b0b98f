#include "gpmx/stm/log_truncator.hpp"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>

#include "gpmx/pm/errors.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::stm {

log_truncator::log_truncator(tx_heap& heap, const tx_log& log, bool truncate_first)
    : heap_(heap),
      log_(log),
      truncate_first_(truncate_first),
      where_(heap.log_name()),
      cursor_(log.geometry.streams(), 0),
      unreclaimed_(log.geometry.streams()) {
  if (!log.geometry.wraps || log.reclaimed == nullptr || log.durable_end == nullptr)
    throw gpmx::error(error_code::usage, "log_truncator: the log's streams do not wrap, or it has no room words");
  const auto starts = heap.stream_starts();
  for (std::uint32_t i = 0; i < cursor_.size(); ++i) cursor_[i] = starts.empty() ? 0 : starts[i];
}

log_truncator::pending_record& log_truncator::pending_slot(std::uint32_t seq, std::uint64_t applied) {
  const std::uint64_t first = applied + 1;
  if (pending_.empty() || seq - first >= pending_.size()) {
    std::size_t size = pending_.empty() ? 1024 : pending_.size();
    while (seq - first >= size) size *= 2;
    std::vector<pending_record> grown(size);
    for (pending_record& r : pending_)
      if (r.present) grown[r.seq % size] = std::move(r);
    pending_ = std::move(grown);
  }
  return pending_[seq % pending_.size()];
}

bool log_truncator::read_published() {
  bool any = false;
  const log_geometry& g = log_.geometry;
  const std::span<const log_entry> all(log_.entries.raw(), g.entries());
  const std::uint64_t applied = heap_.applied_upto();  // only apply_run moves it
  for (std::uint32_t i = 0; i < g.streams(); ++i) {
    // Acquire: the writer's entries before its publication are visible.
    const std::uint64_t end = std::atomic_ref<std::uint64_t>(log_.durable_end[i]).load(std::memory_order_acquire);
    if (end <= cursor_[i]) continue;
    got_.records.clear();
    got_.writes.clear();
    ends_.clear();
    const stream_read r = read_stream(all.subspan(g.stream_start(i), g.stream_entries(i)), i, cursor_[i], end, true,
                                      log_.epoch, heap_.words(), where_, got_, &ends_);
    if (!r.clean)
      throw pm::pm_error(pm::errc::corrupt_value,
                         fmt::format("{}: the transaction log: stream {} at position {} holds no whole record, "
                                     "though its writer published it as durable up to {}",
                                     where_, i, r.end, end));
    for (std::size_t k = 0; k < got_.records.size(); ++k) {
      const scanned_record& rec = got_.records[k];
      unreclaimed_[i].push_back({rec.seq, ends_[k]});
      if (rec.seq <= applied) continue;  // applied already: only its entries wait to be given back
      pending_record& p = pending_slot(rec.seq, applied);
      if (!p.present) ++pending_count_;
      p.present = true;
      p.seq = rec.seq;
      p.stream = i;
      p.writes.assign(got_.writes.begin() + std::ptrdiff_t(rec.first_write),
                      got_.writes.begin() + std::ptrdiff_t(rec.first_write + rec.count));
    }
    any = any || r.end != cursor_[i];
    cursor_[i] = r.end;
  }
  return any;
}

bool log_truncator::apply_run() {
  std::uint64_t upto = heap_.applied_upto();
  const std::span<std::uint32_t> home = heap_.home();
  touched_.clear();
  applied_streams_.clear();
  while (pending_count_ != 0) {
    pending_record& p = pending_[(upto + 1) % pending_.size()];
    if (!p.present || p.seq != std::uint32_t(upto + 1)) break;
    for (const word_write& w : p.writes) {
      home[w.word] = w.value;
      touched_.push_back(w.word);
    }
    applied_streams_.push_back(p.stream);
    p.present = false;
    p.writes.clear();
    --pending_count_;
    ++upto;
    ++applied_;
  }
  if (upto == heap_.applied_upto()) return false;
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  if (!truncate_first_) heap_.persist_home_words(touched_);  // the home image first,
  heap_.set_applied_upto(upto);                              // then how far it goes
  return true;
}

// Only the streams whose records the last apply took can move (a ring's
// front record is reclaimable only once applied), so a step costs what it
// applied, not the number of streams.
bool log_truncator::reclaim() {
  const std::uint64_t upto = heap_.applied_upto();
  std::sort(applied_streams_.begin(), applied_streams_.end());
  applied_streams_.erase(std::unique(applied_streams_.begin(), applied_streams_.end()), applied_streams_.end());
  moved_.clear();
  moved_to_.clear();
  for (const std::uint32_t i : applied_streams_) {
    std::deque<placed>& q = unreclaimed_[i];
    std::uint64_t next = 0;
    bool moved = false;
    while (!q.empty() && q.front().seq <= upto) {
      next = q.front().end;
      moved = true;
      q.pop_front();
    }
    if (moved) {
      moved_.push_back(i);
      moved_to_.push_back(next);
    }
  }
  if (moved_.empty()) return false;
  // The starts are durable before any writer may overwrite what lay before
  // them; the slots are given back at the next step (give_back).
  heap_.set_stream_starts(moved_, moved_to_);
  for (std::size_t k = 0; k < moved_.size(); ++k) to_give_back_.emplace_back(moved_[k], moved_to_[k]);
  ++truncations_;
  return true;
}

bool log_truncator::give_back() {
  if (to_give_back_.empty()) return false;
  for (const auto& [stream, start] : to_give_back_)
    std::atomic_ref<std::uint64_t>(log_.reclaimed[stream]).store(start, std::memory_order_release);
  to_give_back_.clear();
  return true;
}

agent::step_result log_truncator::step() {
  const bool gave = give_back();
  const bool read = read_published();
  const bool applied = apply_run();
  const bool reclaimed = reclaim();
  if (truncate_first_ && applied) heap_.persist_home_words(touched_);  // the seeded bug: too late
  if (gave || read || applied || reclaimed) return step_result::progressed;
  return pending_count_ == 0 ? step_result::idle : step_result::waiting;
}

}  // namespace gpmx::stm
