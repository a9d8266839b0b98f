#pragma once
// SBRP's per-SM persist buffer (section 6 of the paper): a FIFO of persists
// (dirty PM lines of the L1, with the warps that stored to them) and
// ordering points (oFence, scoped pAcq/pRel, barriers; dFence and
// device-scope pRel as durability points), each with a warp bitmask; ACTR,
// the persists flushed and not yet acknowledged as durable; FSM, the warps
// that passed an ordering point whose earlier persists may still be in
// flight. Unrelated warps never wait for each other.
//
// It runs in virtual time: the timing model hands it stores and ordering
// points as warps issue them, and its own events (acknowledgements, wakes)
// through next_event()/advance(). Warps it must stall it reports as wakes,
// each due at a time the caller delivers at that time.
// docs/sim-persistency.md lists the rules and where the paper left a choice.
#include <cstdint>
#include <deque>
#include <queue>
#include <unordered_map>
#include <vector>

#include "gpmx/sim/config.hpp"
#include "gpmx/sim/time.hpp"

namespace gpmx::sim {

using warp_mask = std::uint64_t;  // SM-local warp slots

// What the buffer asks of the memory system.
class pb_memory {
 public:
  // Writes `sectors` of one PM line of this SM's L1 toward the persistence
  // domain at `at` (the line's dirty bits cleared); returns when the SM
  // learns it is durable.
  virtual picos write_back(std::uint64_t line, std::uint32_t sectors, picos at) = 0;

 protected:
  ~pb_memory() = default;
};

struct pb_stats {
  std::uint64_t persists = 0;        // persist entries made
  std::uint64_t coalesced = 0;       // stores merged into a buffered line's entry
  std::uint64_t flushes = 0;         // persists written (from the head or by eviction)
  std::uint64_t ordering_entries = 0;  // oFence, pAcq/pRel, barrier entries (after merging)
  std::uint64_t durability_entries = 0;  // dFence and device pRel entries (after merging)
  std::uint64_t order_stalls = 0;    // stores held: their line's entry precedes the warp's ordering point
  std::uint64_t full_stalls = 0;     // stores held: no free entry
  std::uint64_t eviction_stalls = 0; // evictions held behind an ordering entry or the FSM
  std::uint64_t fsm_waits = 0;       // head persists that waited for ACTR to reach zero
  picos eviction_stall_time = 0;
  std::uint64_t merged_points = 0;   // ordering points merged into an earlier one of the same kind
  void add(const pb_stats& o);
};

class persist_buffer {
 public:
  struct wake {
    std::uint32_t warp;
    picos at;
  };

  // `full_past_window`: under the window policy, each store waiting for an
  // entry of a full buffer lets one more persist go past the window.
  persist_buffer(std::uint32_t entries, flush_policy policy, std::uint32_t window, bool full_past_window = false);

  // A store of `warp` made `sectors` of `line` dirty in the L1 at `t`.
  // Returns true when the store is in the buffer (a new entry, or merged
  // into the line's entry); false when the warp must stall: it will be
  // woken (wakes()) once the store is in.
  bool store(std::uint64_t line, std::uint32_t sectors, std::uint32_t warp, picos t, pb_memory& m);
  // An ordering point of `warps` at `t` (oFence, block-scope pAcq/pRel,
  // device-scope pAcq, a barrier or warp collective): later persists of
  // those warps flush only after their earlier ones are durable.
  void order(warp_mask warps, picos t, pb_memory& m);
  // A durability point of `warp` at `t` (dFence, device-scope pRel): the
  // warp stalls until every persist before it is durable; it is woken then.
  void durable(std::uint32_t warp, picos t, pb_memory& m);

  // A dirty PM line is to leave the L1 by capacity at `t`: returns when its
  // write may go (at once unless an ordering entry of its warps precedes
  // its entry or its warps wait on the FSM); evicted() then takes its entry
  // out.
  picos evicting(std::uint64_t line, picos t, pb_memory& m);
  void evicted(std::uint64_t line, picos t, picos ack, pb_memory& m);

  // The buffer's next event (an acknowledgement it waits for, or a wake
  // due), vtime-never if none; advance(t) runs the events due by `t`.
  picos next_event() const;
  void advance(picos t, pb_memory& m);
  // Wakes due by the last advance (or store/order/durable call), in time
  // order; the caller takes them.
  std::vector<wake>& ready_wakes() { return ready_; }

  // Writes every buffered persist (kernel end); returns when the last is
  // durable. `ordered`: in the buffer's order, waiting for ACTR where the
  // FSM says; otherwise all at once (what the formal model does not allow:
  // a crash during the drain may keep a later persist without an earlier).
  picos drain(picos t, pb_memory& m, bool ordered = true);

  std::uint32_t size() const { return live_; }
  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t in_flight(picos t);  // ACTR at t
  warp_mask fsm() const { return fsm_; }
  const pb_stats& stats() const { return stats_; }

 private:
  enum class kind : std::uint8_t { persist, order, durable, gone };
  struct entry {
    kind k = kind::persist;
    std::uint64_t line = 0;
    std::uint32_t sectors = 0;
    warp_mask warps = 0;
  };
  struct pending_store {  // a held store, applied when its wait ends
    std::uint64_t line;
    std::uint32_t sectors;
    std::uint32_t warp;
  };
  struct timed_action {
    picos at;
    std::uint64_t order;  // tie-break: insertion order
    bool apply;           // apply `store` first; wake only if it goes in
    pending_store store;
    bool operator>(const timed_action& o) const { return at != o.at ? at > o.at : order > o.order; }
  };

  entry& at_seq(std::uint64_t seq) { return fifo_[std::size_t(seq - head_seq_)]; }
  std::uint64_t push_entry(const entry& e);
  void retire_acks(picos t);
  // Writes the head's persists out as the policy allows at `t` (all of
  // them, and past the window, when `force`, up to entry `through`).
  void pump(picos t, pb_memory& m, bool force = false, std::uint64_t through = ~0ull);
  void flush_entry(std::uint64_t seq, picos t, pb_memory& m);
  void written(std::uint64_t seq, picos ack);  // entry seq's line went; durable at ack
  void pop_head();
  std::uint64_t add_point(kind k, std::uint32_t warp);  // an ordering or durability point of one warp
  void schedule(picos at, std::uint32_t warp);
  void schedule_store(picos at, const pending_store& s);
  bool try_store(const pending_store& s, picos t, pb_memory& m, bool count_stall);
  void slot_freed(picos t, pb_memory& m);

  std::uint32_t capacity_;
  flush_policy policy_;
  std::uint32_t window_;
  bool full_past_window_;
  std::deque<entry> fifo_;          // from head_seq_ on; gone entries are tombstones
  std::uint64_t head_seq_ = 0, next_seq_ = 0;
  std::uint32_t live_ = 0;          // entries not gone
  std::unordered_map<std::uint64_t, std::uint64_t> line_entry_;  // line -> its persist entry's seq
  std::deque<std::uint64_t> ordering_seqs_;  // order and durable entries in the FIFO, oldest first
  std::vector<std::uint64_t> warp_order_;    // per warp: seq of its latest order/durable entry (+1; 0: none)
  std::vector<std::uint64_t> warp_last_;     // per warp: seq of its latest entry of any kind (+1; 0: none)
  std::uint64_t latest_point_[2] = {~0ull, ~0ull};  // seq of the latest order / durable entry
  std::priority_queue<picos, std::vector<picos>, std::greater<>> acks_;  // flushed, not yet acknowledged
  picos last_ack_ = 0;
  picos pumped_to_ = 0;  // where the last pump's clock ended (a forced pump may wait for ACTR)
  warp_mask fsm_ = 0;
  std::uint64_t fsm_counted_ = ~0ull;  // the head persist last counted as waiting on the FSM
  std::unordered_map<std::uint64_t, std::vector<pending_store>> blocked_on_;  // entry seq -> stores held on it
  std::deque<pending_store> want_slot_;
  std::priority_queue<timed_action, std::vector<timed_action>, std::greater<>> actions_;
  std::uint64_t actions_made_ = 0;
  std::vector<wake> ready_;
  pb_stats stats_;
};

}  // namespace gpmx::sim
