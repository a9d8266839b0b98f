#pragma once
// The baseline's persistence (helpers off): the committer writes its record
// to its own log stream and makes it durable before it releases its orecs,
// entry by entry (uncoalesced: each entry a separate persist, as a GPU
// thread persisting its write set word by word), then the mark after a
// persist fence. Under sbrp the entries are ordered by one oFence instead
// and the mark waits for durability with a dFence. Kernel code.
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/stm/durability.hpp"
#include "gpmx/stm/log_layout.hpp"
#include "gpmx/stm/log_room.hpp"
#include "gpmx/stm/persist_style.hpp"
#include "gpmx/stm/stm_fail.hpp"
#include "gpmx/stm/transaction.hpp"

namespace gpmx::stm {

class direct_sink {
 public:
  GPMX_HD direct_sink(const tx_shared& s, const tx_log& log, std::uint32_t committer, persist_style style)
      : s_(s),
        log_(log),
        stream_(log.thread_stream(committer)),
        index_(log.thread_stream_index(committer)),
        epoch_(log.epoch),
        style_(style) {}

  // The committer's own stream holds its records in sequence order: no
  // place to take before the number (room is waited for in commit).
  template <class Ctx>
  GPMX_HD sink_place reserve(Ctx&, std::uint32_t) {
    return {};
  }

  template <class Ctx>
  GPMX_HD void commit(Ctx& t, const redo_view& r, sink_place) {
    const std::uint32_t n = record_entries(r.count);
    const std::uint64_t size = stream_.size();
    wait_for_room(t, s_, log_, index_, pos_, n, size, "a committer's log stream is full (entries needed, stream size)");
    const bool sbrp = style_.order == pm::ordering::sbrp;
    const bool careless = style_.faults.mark_with_records;
    auto v = stream_.bind(t);
    // One division per record, not per entry: the slot wraps at the ring's end.
    std::uint64_t slot = pos_ % size;
    for (std::uint32_t i = 0; i + 1 < n; ++i) {
      v[slot] = i == 0 ? make_header(r.seq, r.count) : make_data(r.words[i - 1], r.values[i - 1]);
      if (!sbrp && !careless) t.gpm_persist();
      if (++slot == size) slot = 0;
    }
    if (sbrp && !careless) t.ofence();
    v[slot] = make_mark(r.seq, mark_check(epoch_, make_header(r.seq, r.count)));
    persist_own(t, style_);
    note_durable(t, s_, r.seq);
    pos_ += n;
    publish_durable_end(t, log_, index_, pos_);
    count(t, s_, count_direct);
    count(t, s_, count_log_entries, n);
  }

 private:
  const tx_shared& s_;
  const tx_log& log_;
  pm::pm_span<log_entry> stream_;
  std::uint32_t index_;
  std::uint64_t epoch_;
  persist_style style_;
  std::uint64_t pos_ = 0;
};

}  // namespace gpmx::stm
