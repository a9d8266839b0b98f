#include "gpmx/sim/persist_buffer.hpp"

#include <algorithm>
#include <bit>

namespace gpmx::sim {

namespace {
warp_mask bit_of(std::uint32_t warp) { return warp_mask(1) << warp; }
}  // namespace

void pb_stats::add(const pb_stats& o) {
  persists += o.persists;
  coalesced += o.coalesced;
  flushes += o.flushes;
  ordering_entries += o.ordering_entries;
  durability_entries += o.durability_entries;
  order_stalls += o.order_stalls;
  full_stalls += o.full_stalls;
  eviction_stalls += o.eviction_stalls;
  fsm_waits += o.fsm_waits;
  eviction_stall_time += o.eviction_stall_time;
  merged_points += o.merged_points;
}

persist_buffer::persist_buffer(std::uint32_t entries, flush_policy policy, std::uint32_t window,
                               bool full_past_window)
    : capacity_(std::max<std::uint32_t>(entries, 1)),
      policy_(policy),
      window_(std::max<std::uint32_t>(window, 1)),
      full_past_window_(full_past_window),
      warp_order_(64, 0),
      warp_last_(64, 0) {}

std::uint64_t persist_buffer::push_entry(const entry& e) {
  fifo_.push_back(e);
  ++live_;
  const std::uint64_t seq = next_seq_++;
  if (e.k != kind::persist) ordering_seqs_.push_back(seq);
  return seq;
}

void persist_buffer::retire_acks(picos t) {
  while (!acks_.empty() && acks_.top() <= t) acks_.pop();
  if (acks_.empty()) fsm_ = 0;  // ACTR at zero: nothing flushed is still unacknowledged
}

std::uint32_t persist_buffer::in_flight(picos t) {
  retire_acks(t);
  return std::uint32_t(acks_.size());
}

void persist_buffer::pop_head() {
  fifo_.pop_front();
  ++head_seq_;
}

void persist_buffer::schedule(picos at, std::uint32_t warp) {
  actions_.push({at, actions_made_++, false, {0, 0, warp}});
}

void persist_buffer::schedule_store(picos at, const pending_store& s) {
  actions_.push({at, actions_made_++, true, s});
}

bool persist_buffer::try_store(const pending_store& s, picos, pb_memory&, bool count_stall) {
  if (const auto it = line_entry_.find(s.line); it != line_entry_.end()) {
    const std::uint64_t k = it->second;
    // The line's entry precedes an ordering point of this warp: merging
    // would let the new store persist with the old, before what the
    // ordering point orders ahead of it. Held until that entry is durable.
    if (warp_order_[s.warp] > k + 1) {
      if (count_stall) ++stats_.order_stalls;
      blocked_on_[k].push_back(s);
      return false;
    }
    entry& e = at_seq(k);
    e.sectors |= s.sectors;
    e.warps |= bit_of(s.warp);
    warp_last_[s.warp] = std::max(warp_last_[s.warp], k + 1);
    ++stats_.coalesced;
    return true;
  }
  if (live_ >= capacity_) {
    if (count_stall) ++stats_.full_stalls;
    want_slot_.push_back(s);
    return false;
  }
  const std::uint64_t seq = push_entry({kind::persist, s.line, s.sectors, bit_of(s.warp)});
  line_entry_[s.line] = seq;
  warp_last_[s.warp] = seq + 1;
  ++stats_.persists;
  return true;
}

bool persist_buffer::store(std::uint64_t line, std::uint32_t sectors, std::uint32_t warp, picos t, pb_memory& m) {
  retire_acks(t);
  const bool in = try_store({line, sectors, warp}, t, m, true);
  pump(t, m);
  return in;
}

std::uint64_t persist_buffer::add_point(kind k, std::uint32_t warp) {
  // A warp's ordering point merges into the latest point of the same kind
  // when none of the warp's entries follows that point: nothing of the
  // warp lies between, so the merged point orders what the warp's own
  // would (it may order the warp a little earlier, never later). Spins on
  // pAcq add one entry per warp this way, not one per try.
  const std::uint64_t latest = latest_point_[k == kind::durable];
  if (latest != ~0ull && latest >= head_seq_ && at_seq(latest).k == k && latest + 1 >= warp_last_[warp]) {
    at_seq(latest).warps |= bit_of(warp);
    ++stats_.merged_points;
  } else {
    latest_point_[k == kind::durable] = push_entry({k, 0, 0, bit_of(warp)});
    ++(k == kind::durable ? stats_.durability_entries : stats_.ordering_entries);
  }
  const std::uint64_t seq = latest_point_[k == kind::durable];
  warp_order_[warp] = warp_last_[warp] = seq + 1;
  return seq;
}

void persist_buffer::order(warp_mask warps, picos t, pb_memory& m) {
  retire_acks(t);
  for (warp_mask w = warps; w != 0; w &= w - 1) add_point(kind::order, unsigned(std::countr_zero(w)));
  pump(t, m);
}

void persist_buffer::durable(std::uint32_t warp, picos t, pb_memory& m) {
  retire_acks(t);
  add_point(kind::durable, warp);
  pump(t, m);
}

void persist_buffer::flush_entry(std::uint64_t seq, picos t, pb_memory& m) {
  const entry& e = at_seq(seq);
  written(seq, m.write_back(e.line, e.sectors, t));
}

void persist_buffer::written(std::uint64_t seq, picos ack) {
  entry& e = at_seq(seq);
  acks_.push(ack);
  last_ack_ = std::max(last_ack_, ack);
  ++stats_.flushes;
  if (const auto it = line_entry_.find(e.line); it != line_entry_.end() && it->second == seq) line_entry_.erase(it);
  if (const auto it = blocked_on_.find(seq); it != blocked_on_.end()) {
    for (const pending_store& s : it->second) schedule_store(ack, s);  // in once the old persist is durable
    blocked_on_.erase(it);
  }
  e.k = kind::gone;
  --live_;
  if (seq == head_seq_) pop_head();
}

void persist_buffer::pump(picos t, pb_memory& m, bool force, std::uint64_t through) {
  picos now = t;
  for (;;) {
    retire_acks(now);
    while (head_seq_ < next_seq_ && head_seq_ <= through) {
      entry& e = fifo_.front();
      if (e.k == kind::gone) {
        pop_head();
        continue;
      }
      if (e.k == kind::order || e.k == kind::durable) {
        // At the head every persist before it has been flushed; later
        // persists of its warps wait until those are acknowledged (FSM).
        fsm_ |= e.warps;
        if (e.k == kind::durable) {
          // Its warps go on when everything flushed so far is durable (the
          // flushes in flight now, not later ones: see the docs).
          const picos when = std::max(now, last_ack_);
          for (warp_mask w = e.warps; w != 0; w &= w - 1) schedule(when, unsigned(std::countr_zero(w)));
        }
        ordering_seqs_.pop_front();
        --live_;
        pop_head();
        continue;
      }
      if (!force) {
        const bool needed = !ordering_seqs_.empty() || live_ >= capacity_ || !want_slot_.empty();
        if (policy_ == flush_policy::lazy && !needed) break;
        const std::size_t past = full_past_window_ ? want_slot_.size() : 0;  // stores waiting on a full buffer
        if (policy_ == flush_policy::window && acks_.size() >= window_ + past) break;
      }
      // FIFO order: a persist whose warps passed an ordering point waits at
      // the head until ACTR is zero, and what is behind it waits too (as
      // in the paper and its simulator; FSM spares the warps that did not).
      if ((e.warps & fsm_) != 0 && !acks_.empty()) {
        if (!force) {
          if (fsm_counted_ != head_seq_) ++stats_.fsm_waits, fsm_counted_ = head_seq_;
          break;  // the acknowledgement that empties ACTR resumes it
        }
        now = std::max(now, last_ack_);
        retire_acks(now);
      }
      flush_entry(head_seq_, now, m);
    }
    // Freed entries go to held stores, oldest first.
    bool added = false;
    while (!want_slot_.empty() && live_ < capacity_) {
      const pending_store s = want_slot_.front();
      want_slot_.pop_front();
      if (try_store(s, now, m, false)) schedule(now, s.warp), added = true;
    }
    if (!added) break;
  }
  pumped_to_ = now;
}

picos persist_buffer::evicting(std::uint64_t line, picos t, pb_memory& m) {
  retire_acks(t);
  const auto it = line_entry_.find(line);
  if (it == line_entry_.end()) return t;
  const std::uint64_t k = it->second;
  const warp_mask warps = at_seq(k).warps;
  picos now = t;
  // The line's persist is ordered after everything ahead of the latest
  // ordering entry of its own warps; an unrelated warp's ordering point
  // orders nothing of it (SBRP's simulator checks the same). The evicting
  // warp waits until the buffer has drained through that entry, in order.
  const auto own = std::find_if(ordering_seqs_.rbegin(), ordering_seqs_.rend(), [&](std::uint64_t j) {
    return j < k && (at_seq(j).warps & warps) != 0;
  });
  if (own != ordering_seqs_.rend()) {
    pump(t, m, true, *own);
    now = std::max(now, pumped_to_);
  }
  if ((at_seq(k).warps & fsm_) != 0 && !acks_.empty()) {
    now = std::max(now, last_ack_);
    retire_acks(now);
  }
  if (now > t) ++stats_.eviction_stalls;  // held behind an ordering entry or the FSM
  stats_.eviction_stall_time += now - t;
  return now;
}

void persist_buffer::evicted(std::uint64_t line, picos t, picos ack, pb_memory& m) {
  const auto it = line_entry_.find(line);
  if (it == line_entry_.end()) return;
  written(it->second, ack);  // the L1 wrote it: the same as a flush from here on
  pump(t, m);
}

picos persist_buffer::next_event() const {
  picos t = actions_.empty() ? picos(~picos(0)) : actions_.top().at;
  // An acknowledgement matters while something waits for the window or ACTR.
  if (!acks_.empty() && (live_ != 0 || !want_slot_.empty())) t = std::min(t, acks_.top());
  return t;
}

void persist_buffer::advance(picos t, pb_memory& m) {
  retire_acks(t);
  pump(t, m);
  while (!actions_.empty() && actions_.top().at <= t) {
    const timed_action a = actions_.top();
    actions_.pop();
    if (!a.apply) {
      ready_.push_back({a.store.warp, a.at});
    } else if (try_store(a.store, a.at, m, false)) {
      ready_.push_back({a.store.warp, a.at});
      pump(a.at, m);
    }
  }
}

picos persist_buffer::drain(picos t, pb_memory& m, bool ordered) {
  if (!ordered) {
    // Every buffered persist at once, ordering points ignored.
    for (std::uint64_t seq = head_seq_; seq < next_seq_; ++seq)
      if (at_seq(seq).k == kind::persist) flush_entry(seq, t, m);
    fsm_ = 0;
  }
  pump(t, m, true);
  return std::max({t, pumped_to_, last_ack_});
}

}  // namespace gpmx::sim
