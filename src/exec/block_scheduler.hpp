#pragma once
// Runs one resident block: starts its threads lazily on carrier fibers,
// suspends the ones that wait (barrier, warp rendezvous, spin-wait), wakes
// them when they can go on, and reports a deadlock when none can.
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "carrier_pool.hpp"
#include "fiber.hpp"
#include "gpmx/exec/cpu/thread_ctx.hpp"
#include "launch_state.hpp"
#include "run_ahead_rows.hpp"
#include "choice_policy.hpp"
#include "warp_semantics.hpp"

namespace gpmx::cpu::detail {

class block_scheduler {
 public:
  block_scheduler(carrier_pool& carriers, scheduler_stack& sched);
  ~block_scheduler();
  block_scheduler(const block_scheduler&) = delete;
  block_scheduler& operator=(const block_scheduler&) = delete;

  // Takes block `linear` of launch L; det is the deterministic schedule's
  // policy, or null for the parallel schedule. The timed schedule passes
  // timed = true (and a policy, which it never asks).
  // batch: the running worker's hand-overs (group commit; parallel schedule).
  void start(launch_state& L, std::uint64_t linear, choice_policy* det, bool timed = false,
             durability_batch* batch = nullptr);

  // Where a carrier that finished its block cheaply may take the next block
  // from (parallel schedule only): the worker's block claim.
  using block_source = std::function<bool(std::uint64_t& linear)>;
  void set_block_source(block_source* source) { source_ = source; }

  // passed: no thread ended or began waiting on something new, but some
  // spinning thread's condition held (it went on to its next wait).
  enum class outcome { finished, progressed, passed, stalled };
  // Parallel: runs every thread that can run, then polls spinners once.
  // Deterministic: makes one seeded choice (or one polling round).
  // Throws deadlock_error when no thread of the block can ever go on.
  outcome run();
  // Unwinds every suspended thread (the launch failed elsewhere).
  void cancel();
  // One line per waiting thread: who it is and what it waits on.
  std::string describe_waits() const;
  std::uint64_t block_linear() const { return state_.block_linear; }

  // Runs this block's unstarted threads on the carrier `rec` (called on
  // the carrier's own stack by the carrier pool's fiber loop).
  void fiber_body(fiber_record& rec);

  // Called by thread_ctx on behalf of the running thread.
  barrier_result arrive_barrier(thread_ctx& t, std::uint32_t pred);
  std::uint64_t warp_collective(thread_ctx& t, warp_op op, std::uint32_t mask, std::uint64_t value,
                                int arg, int width);
  std::uint32_t activemask(thread_ctx& t);
  void spin_yield(thread_ctx& t);
  // A spinning thread's condition held: progress (outcome::passed). Without
  // it a worker whose threads wait on one I/O after another (no exits for
  // a long while) counted its rounds as stalled and slept between them.
  void spin_passed() { ++spin_passes_; }
  // Whether spin_wait_long's conditions are checked at each poll on the
  // worker's stack (the parallel schedule; the others resume every try).
  bool checks_spins_off_fiber() const { return det_ == nullptr && !state_.timed; }
  void maybe_yield(thread_ctx& t);
  // Parks t, whose lines were gathered into the running worker's batch,
  // until the group commit ticket the worker hands the batch over under (at
  // its round's end) is complete, rethrowing a failed flush's error in t.
  void wait_durable(thread_ctx& t, durability_batch& batch);
  // Whether some thread of the block waits for a durable flush.
  bool waits_on_durability() const { return durable_waiters_ != 0; }
  // Parks t until `ready` (an emulated device's finishing time, see
  // device_wait.hpp); polled with the spinners, resumed once it has passed.
  void wait_device(thread_ctx& t, std::chrono::steady_clock::time_point ready);
  // Whether some thread of the block waits for an emulated device.
  bool waits_on_device() const { return device_waiters_ != 0; }
  // Whether, at the last poll, some thread of the block was still in a
  // long wait (thread_ctx::spin_wait_long: an I/O's completion, which an
  // agent's thread will bring).
  bool waits_long() const { return long_waiters_ != 0; }
  // Lanes of warp w have exited (published by the carrier of `reporter`).
  void threads_exited(std::uint32_t w, std::uint32_t lanes, dim3 reporter);

  // --- the timed schedule (see timed_engine.hpp) ---
  // Plain loads (and stores) a lane of the next block started may run
  // ahead (0: none).
  void set_run_ahead(std::uint32_t operations, bool stores) {
    state_.run_ahead = operations;
    state_.run_ahead_stores = operations != 0 && stores;
  }
  // Parks t at `op` until its warp issues it (after the loads t ran ahead
  // over, which issue first, in order).
  void timed_park(thread_ctx& t, const timed_op& op);
  // Whether t has recorded loads its warp has not issued yet.
  bool timed_has_recorded(const thread_ctx& t) const;
  // Parks t, which stopped after recorded loads, until its warp has issued
  // them all.
  void timed_hold(thread_ctx& t);
  // A spin try checked off the lane's fiber (thread_ctx::retry_spin_off_fiber)
  // failed: the lane stops at `op`, its next try, as if it had been resumed
  // and parked again.
  void timed_restop(thread_ctx& t, const timed_op& op);
  [[noreturn]] static void throw_wait_in_condition();
  // Runs every unstarted thread to its first stop.
  void stage();
  // Resumes the given parked lanes of warp w, in lane order; each runs to
  // its next stop, and so do the threads their operations wake.
  void resume_lanes(std::uint32_t w, std::uint32_t lanes);
  std::uint32_t warp_count() const { return std::uint32_t(warps_.size()); }
  std::uint32_t live_lanes(std::uint32_t w) const { return state_.warp_live[w]; }
  std::uint32_t parked_lanes(std::uint32_t w) const { return timed_[w].lanes; }
  // The operation lane `lane` of warp w is parked at: its record, or the
  // slot's copy when it recorded none.
  timed_op stop_op(std::uint32_t w, std::uint32_t lane) const {
    const timed_slot& slot = timed_[w];
    return recorded(w, lane) != 0 ? recorded_value(w, lane, slot.at[lane]) : slot.ops[lane];
  }
  // A lane of warp w is about to write its first record of a run: the warp
  // gets rows to write into (thread_ctx::begin_ahead_records).
  timed_op* begin_records(std::uint32_t w) { return rows_.begin(w, lanes_of(w)); }
  // The operations `lanes` of warp w are parked at, indexed by lane, for
  // the warp's issue: the row of records itself when every lane stops at
  // the same recorded operation (a warp running a loop of loads), else
  // copies gathered into the slot. Valid until the lanes resume. `uniform`:
  // every lane's operation is known to be the same but for its address
  // (a summarized row), so the issue need not compare them.
  timed_op* stop_ops(std::uint32_t w, std::uint32_t lanes, bool& uniform);
  // Drops the declared work of `lanes`' stops (issued before the operation).
  void clear_stop_work(std::uint32_t w, std::uint32_t lanes);
  // The lane of warp w that stopped first among `lanes` (the oldest stop
  // issues first, so lanes that ran ahead wait and divergent paths meet
  // again at a common operation).
  std::uint32_t oldest_stop(std::uint32_t w, std::uint32_t lanes) const {
    const timed_slot& slot = timed_[w];
    if (lanes == ~0u) {  // a whole warp: a loop without bit scans, the first minimum as below
      std::uint32_t best = 0;
      for (std::uint32_t l = 1; l < warp_size; ++l) best = slot.seq[l] < slot.seq[best] ? l : best;
      return best;
    }
    std::uint32_t best = std::uint32_t(std::countr_zero(lanes));
    for (std::uint32_t m = lanes & (lanes - 1); m != 0; m &= m - 1) {
      const auto l = std::uint32_t(std::countr_zero(m));
      if (slot.seq[l] < slot.seq[best]) best = l;
    }
    return best;
  }
  bool finished() const { return idle(); }
  // Calls f(w) for each warp that parked a lane since the last call.
  template <class F>
  void take_touched(F&& f) {
    for (const std::uint32_t w : touched_) {
      timed_[w].touched = false;
      f(w);
    }
    touched_.clear();
  }

 private:
  struct pending_collective {
    warp_arrivals arrivals;
    std::uint32_t arrived = 0;
    std::array<fiber_record*, 32> waiter{};
  };
  struct warp_slot {
    std::vector<pending_collective> pending;
    std::uint32_t parked = 0;              // lanes suspended, for any reason
    std::uint32_t activemask_waiting = 0;  // lanes suspended in activemask()
  };
  // The timed schedule's per-warp state, apart from warp_slot so that the
  // other schedules' slots stay small (they are touched at every suspend).
  struct timed_slot {
    std::uint32_t lanes = 0;  // parked at an operation
    bool touched = false;
    std::array<fiber_record*, 32> fiber{};
    std::array<timed_op, 32> ops{};
    bool ops_hold_row = false;  // every ops[l] is one summarized row's (stop_ops): its fields, addresses apart
    std::array<std::uint64_t, 32> seq{};  // order in which the lanes stopped
    std::uint64_t next_seq = 0;
    // Per lane: which of its recorded operations (recorded_counts_) it
    // stops at now. A lane with none recorded stops at ops[lane].
    std::array<std::uint16_t, 32> at{};
  };
  // The lane's stop at `op` (its warp issues it when the lane's turn comes).
  void timed_stop_at(timed_slot& slot, std::uint32_t w, std::uint32_t lane, const timed_op& op);
  // The same at its recorded operation slot.at[lane], which stays where it
  // lies: a warp's lanes that ran a loop of loads stop at one row of
  // records, and the warp's issue reads that row (stop_ops).
  void timed_stop_at_record(timed_slot& slot, std::uint32_t w, std::uint32_t lane);
  // resume_lanes' common case: when every lane of `lanes` recorded its next
  // operation already, each stops there without running (in lane order, as
  // the general loop would) and this returns true; else it changes nothing.
  bool advance_recorded(timed_slot& slot, std::uint32_t w, std::uint32_t lanes);
  // Record k of lane (w, lane) in the warp's rows, which it must hold.
  timed_op& recorded_op(std::uint32_t w, std::uint32_t lane, std::uint32_t k) {
    return rows_.rows_of(w)[std::size_t(k) * warp_size + lane];
  }
  // The same, read from the rows or from the row's summary.
  timed_op recorded_value(std::uint32_t w, std::uint32_t lane, std::uint32_t k) const {
    return rows_.value(w, lane, k);
  }
  run_ahead_rows::lane_state lanes_of(std::uint32_t w) const {
    return {&recorded_counts_[std::size_t(w) * warp_size], timed_[w].at.data()};
  }
  void summarize_written() {
    rows_.summarize_written([this](std::uint32_t w) { return lanes_of(w); });
  }
  // Operations lane (w, lane) recorded in its warp's rows: loads and stores
  // it ran ahead over, then perhaps the operation it parked at.
  std::uint16_t& recorded(std::uint32_t w, std::uint32_t lane) { return recorded_counts_[w * warp_size + lane]; }
  std::uint16_t recorded(std::uint32_t w, std::uint32_t lane) const { return recorded_counts_[w * warp_size + lane]; }
  void run_woken();

  fiber_record* new_carrier();
  void run_fiber(fiber_record* rec);
  void suspend(thread_ctx& t, wait_kind why);
  void wake(fiber_record* rec);
  void complete_barrier();
  void check_activemask(std::uint32_t warp);
  // On the carrier `rec`, after its block ran out of unstarted threads: if
  // the block has ended with nobody waiting, starts the next block in place
  // (no fiber switch, no trip through the worker) and returns true.
  bool chain_next_block(fiber_record& rec);
  bool idle() const { return state_.next_unstarted >= state_.nthreads && fibers_.empty(); }
  outcome run_parallel();
  outcome run_deterministic();
  outcome poll_spinners();
  [[noreturn]] void throw_deadlock() const;
  std::string who(const thread_ctx& t) const;

  carrier_pool& carriers_;
  scheduler_stack& sched_;
  launch_state* L_ = nullptr;
  choice_policy* det_ = nullptr;
  block_source* source_ = nullptr;
  block_state state_;

  std::vector<fiber_record*> fibers_;  // created and not finished (fiber_record::slot indexes it)
  std::vector<fiber_record*> runnable_;
  std::size_t runnable_head_ = 0;
  std::vector<fiber_record*> spinning_;  // spinners and threads waiting for durability
  std::vector<fiber_record*> polling_;   // poll_spinners' round
  std::uint32_t durable_waiters_ = 0;
  std::uint32_t device_waiters_ = 0;
  std::uint32_t long_waiters_ = 0;  // spinners with a condition checked off the fiber, at the last poll
  // The group commit's completed tickets when poll_spinners last looked at
  // every waiter (no_poll_yet before): while every waiter waits for
  // durability and no flush has completed since, none can have become ready.
  static constexpr std::uint64_t no_poll_yet = ~std::uint64_t(0);
  std::uint64_t polled_at_completed_ = no_poll_yet;

  std::vector<fiber_record*> barrier_waiters_;
  std::uint32_t barrier_arrived_ = 0;
  std::uint32_t barrier_true_ = 0;
  std::vector<warp_slot> warps_;
  bool warps_dirty_ = false;  // set by cancel(): slots may hold waiters
  std::vector<timed_slot> timed_;  // per warp, timed schedule only
  // Per warp, state_.run_ahead rows of 32 lanes (a convergent warp's lanes
  // record their k-th load side by side), or their summaries.
  run_ahead_rows rows_;
  std::vector<std::uint16_t> recorded_counts_;  // per lane of each warp, see recorded()
  std::vector<std::uint32_t> touched_;

  std::uint64_t events_ = 0;  // exits and arrivals: what counts as progress
  std::uint64_t spin_passes_ = 0;  // spin conditions that held after failing
  bool checking_off_fiber_ = false;  // a spin condition runs on the scheduler's stack: it may not wait
  std::vector<std::uint32_t> order_;
  // A page: the timed mode's model sees shared memory at its host address's
  // offset within a page and picks banks by it, so an arena wherever the
  // heap put it (64-byte aligned) changed bank conflicts, and a run's
  // cycles, with unrelated allocations (a progress bar drawn or not).
  static constexpr std::size_t arena_alignment = 4096;
  struct arena_delete {  // the arena is over-aligned: delete it the way it was made
    void operator()(std::byte* p) const { ::operator delete[](p, std::align_val_t(arena_alignment)); }
  };
  std::unique_ptr<std::byte[], arena_delete> arena_;
  std::size_t arena_bytes_ = 0;
};

}  // namespace gpmx::cpu::detail
