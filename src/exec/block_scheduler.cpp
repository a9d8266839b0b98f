#include "block_scheduler.hpp"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <new>

#include "gpmx/exec/errors.hpp"
#include "group_commit.hpp"

namespace gpmx::cpu::detail {
namespace {

std::string coords(dim3 d) { return fmt::format("({},{},{})", d.x, d.y, d.z); }

const char* describe(wait_kind k) {
  switch (k) {
    case wait_kind::none: return "nothing";
    case wait_kind::barrier: return "the block barrier (syncthreads)";
    case wait_kind::warp_collective: return "a warp collective";
    case wait_kind::activemask: return "activemask";
    case wait_kind::spin: return "spin_wait (its condition stays false)";
    case wait_kind::yield: return "a scheduling point";
    case wait_kind::durability: return "a durable flush of its PM stores (group commit)";
    case wait_kind::device: return "an emulated device to finish its persist";
    case wait_kind::timed: return "its warp's next instruction (timed schedule)";
  }
  return "?";
}

}  // namespace

block_scheduler::block_scheduler(carrier_pool& carriers, scheduler_stack& sched)
    : carriers_(carriers), sched_(sched) {}

block_scheduler::~block_scheduler() {
  if (!fibers_.empty()) cancel();
}

void block_scheduler::start(launch_state& L, std::uint64_t linear, choice_policy* det, bool timed,
                            durability_batch* batch) {
  L_ = &L;
  det_ = det;
  const launch_config& cfg = *L.cfg;
  state_.grid_dim = cfg.grid;
  state_.block_dim = cfg.block;
  state_.block_linear = linear;
  state_.block_idx = delinearize(linear, cfg.grid);
  state_.nthreads = std::uint32_t(cfg.block.count());
  state_.next_unstarted = 0;
  state_.live = state_.nthreads;
  state_.suspended = 0;
  state_.deterministic = det != nullptr;
  state_.timed = timed;
  state_.observer = L.obs;
  state_.observed_spaces = L.observed_spaces;
  state_.reported_load_spaces = L.reported_load_spaces;
  state_.scheduling_spaces = L.scheduling_spaces;
  state_.scheduler = this;
  state_.durability = det ? nullptr : L.durability;
  state_.batch = state_.durability ? batch : nullptr;

  const std::uint32_t nwarps = (state_.nthreads + warp_size - 1) / warp_size;
  state_.warp_live.assign(nwarps, full_mask);
  if (state_.nthreads % warp_size)
    state_.warp_live.back() = (1u << (state_.nthreads % warp_size)) - 1u;
  // A block that finished leaves its warp slots clean; only a cancelled one
  // (or a different block size) needs them reset.
  if (warps_.size() != nwarps || warps_dirty_) {
    warps_.assign(nwarps, warp_slot{});
    warps_dirty_ = false;
  }
  if (timed) {
    timed_.assign(nwarps, timed_slot{});
    recorded_counts_.assign(std::size_t(nwarps) * warp_size, 0);
  }
  if (!timed) set_run_ahead(0, false);  // the timed engine sets it before each of its blocks
  const bool ahead = timed && state_.run_ahead != 0;
  rows_.reset(ahead ? nwarps : 0, state_.run_ahead);
  state_.ahead_rows = ahead ? rows_.rows() : nullptr;
  state_.ahead_count = ahead ? recorded_counts_.data() : nullptr;

  // One arena per block: static __shared__ arrays first, then dynamic.
  const std::size_t static_bytes = L.options->limits.static_shared_bytes;
  const std::size_t need = static_bytes + cfg.dynamic_shared_bytes;
  if (need > arena_bytes_) {
    arena_.reset(new (std::align_val_t(arena_alignment)) std::byte[need]);
    arena_bytes_ = need;
  }
  state_.static_shared = arena_.get();
  state_.static_shared_capacity = static_bytes;
  state_.shared_bytes = need;
  state_.static_shared_used = 0;
  state_.static_slots.clear();
  state_.dynamic_shared = arena_.get() + static_bytes;

  touched_.clear();
  if (det && !timed) {  // a GPU's lanes are fixed: the timed schedule starts threads in rank order
    order_.resize(state_.nthreads);
    for (std::uint32_t i = 0; i < state_.nthreads; ++i) order_[i] = i;
    det->shuffle(order_.begin(), order_.end());
    state_.start_order = order_.data();
  } else {
    state_.start_order = nullptr;
  }
  runnable_.clear();
  runnable_head_ = 0;
  spinning_.clear();
  durable_waiters_ = 0;
  device_waiters_ = 0;
  polled_at_completed_ = no_poll_yet;
  barrier_waiters_.clear();
  barrier_arrived_ = barrier_true_ = 0;
  fibers_.clear();
  events_ = 0;
}

fiber_record* block_scheduler::new_carrier() {
  fiber_record* rec = carriers_.acquire(this);
  rec->slot = std::uint32_t(fibers_.size());
  fibers_.push_back(rec);
  return rec;
}

bool block_scheduler::chain_next_block(fiber_record& rec) {
  if (det_ || !source_ || fibers_.size() != 1 || state_.live != 0 || state_.suspended != 0 ||
      !spinning_.empty() || L_->abort.load(std::memory_order_relaxed))
    return false;
  std::uint64_t linear = 0;
  if (!(*source_)(linear)) return false;
  start(*L_, linear, nullptr, false, state_.batch);  // the same worker: its batch
  rec.slot = 0;
  fibers_.push_back(&rec);  // start() forgot the carrier that is running it
  ++events_;
  return true;
}

void block_scheduler::fiber_body(fiber_record& rec) {
  rec.thread = nullptr;
  try {
    do L_->loop(L_->closure, state_, rec);
    while (chain_next_block(rec));
  } catch (const fiber_cancelled&) {
    throw;
  } catch (...) {
    std::string what = "unknown exception";
    try {
      throw;
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    L_->fail(std::make_exception_ptr(kernel_error(
        fmt::format("kernel '{}': block {} thread {}: {}", L_->cfg->name,
                    coords(state_.block_idx), coords(rec.failed_thread), what),
        state_.block_idx, rec.failed_thread, std::current_exception())));
  }
}

void block_scheduler::run_fiber(fiber_record* rec) {
  if (rec->wait != wait_kind::none) {
    const std::uint32_t lane = rec->thread->lane_id();
    warps_[rec->thread->warp_id()].parked &= ~(1u << lane);
    --state_.suspended;
    if (rec->wait == wait_kind::durability) --durable_waiters_;
    if (rec->wait == wait_kind::device) --device_waiters_;
    rec->wait = wait_kind::none;
  }
  resume_fiber(*rec, sched_);
  if (rec->done || rec->parked) {  // no thread of this block on it any more
    fibers_[rec->slot] = fibers_.back();  // swap-remove: O(1) per finished fiber
    fibers_[rec->slot]->slot = rec->slot;
    fibers_.pop_back();
    if (rec->done) carriers_.release(rec);
    else carriers_.park(rec);
    ++events_;
  }
}

void block_scheduler::suspend(thread_ctx& t, wait_kind why) {
  if (checking_off_fiber_) throw_wait_in_condition();
  fiber_record& rec = t.fiber();
  rec.thread = &t;  // valid while suspended: reports and wake-ups read it
  rec.wait = why;
  ++state_.suspended;
  const std::uint32_t w = t.warp_id();
  // A lane that only yields (a scheduling point) stays runnable: not parked.
  if (why != wait_kind::yield) warps_[w].parked |= 1u << t.lane_id();
  const bool polled = why == wait_kind::spin || why == wait_kind::durability || why == wait_kind::device;
  if (polled) spinning_.push_back(&rec);
  else if (why == wait_kind::timed) {}  // the timed engine resumes it through its warp slot
  else if (why == wait_kind::yield) runnable_.push_back(&rec);
  if (why == wait_kind::durability) ++durable_waiters_;
  if (why == wait_kind::device) ++device_waiters_;
  if (!polled) ++events_;
  if (warps_[w].activemask_waiting) check_activemask(w);
  suspend_fiber(rec, sched_);
}

// A woken lane is no longer waiting: activemask() must wait for it to stop
// again (a lane that left a warp collective and runs on to an activemask()
// of its own would otherwise find its runnable siblings counted as parked,
// and get a mask of itself alone).
void block_scheduler::wake(fiber_record* rec) {
  warps_[rec->thread->warp_id()].parked &= ~(1u << rec->thread->lane_id());
  runnable_.push_back(rec);
}

// --- block barrier ---

barrier_result block_scheduler::arrive_barrier(thread_ctx& t, std::uint32_t pred) {
  ++barrier_arrived_;
  barrier_true_ += pred;
  if (barrier_arrived_ == state_.live) {
    const barrier_result r{barrier_true_, barrier_arrived_};
    complete_barrier();
    ++events_;
    return r;
  }
  barrier_waiters_.push_back(&t.fiber());
  suspend(t, wait_kind::barrier);
  return t.fiber().barrier;
}

void block_scheduler::complete_barrier() {
  const barrier_result r{barrier_true_, barrier_arrived_};
  for (fiber_record* rec : barrier_waiters_) {
    rec->barrier = r;
    wake(rec);
  }
  barrier_waiters_.clear();
  barrier_arrived_ = barrier_true_ = 0;
}

// --- warp collectives ---

std::uint64_t block_scheduler::warp_collective(thread_ctx& t, warp_op op, std::uint32_t mask,
                                               std::uint64_t value, int arg, int width) {
  const std::uint32_t w = t.warp_id(), lane = t.lane_id(), bit = 1u << lane;
  if (!(mask & bit))
    throw kernel_usage_error(fmt::format("{} with mask {:#010x} called by lane {}, which is not in the mask",
                                         to_string(op), mask, lane));
  if (width < 1 || width > 32 || !std::has_single_bit(unsigned(width)))
    throw kernel_usage_error(fmt::format("{}: width {} is not a power of two in [1, 32]",
                                         to_string(op), width));
  if (const std::uint32_t gone = mask & ~state_.warp_live[w] & ~bit)
    throw kernel_usage_error(fmt::format(
        "{} with mask {:#010x}: lane {} of warp {} has exited or does not exist; "
        "a warp operation's mask may name only live lanes",
        to_string(op), mask, std::countr_zero(gone), w));

  auto& pending = warps_[w].pending;
  auto it = std::find_if(pending.begin(), pending.end(),
                         [&](const pending_collective& p) { return p.arrivals.mask == mask; });
  if (it == pending.end()) {
    pending.emplace_back();
    it = pending.end() - 1;
    it->arrivals.op = op;
    it->arrivals.mask = mask;
  } else if (it->arrivals.op != op) {
    throw kernel_usage_error(fmt::format(
        "warp {}: lane {} called {} with mask {:#010x} while lanes {:#010x} wait in {} with the same mask",
        w, lane, to_string(op), mask, it->arrived, to_string(it->arrivals.op)));
  }
  it->arrivals.value[lane] = value;
  it->arrivals.arg[lane] = arg;
  it->arrivals.width[lane] = width;
  it->arrived |= bit;
  if (it->arrived != mask) {
    fiber_record& rec = t.fiber();
    rec.op = op;
    rec.wait_mask = mask;
    it->waiter[lane] = &rec;
    suspend(t, wait_kind::warp_collective);
    return rec.result;
  }
  // Last to arrive: hand every lane its result and go on.
  const pending_collective done = *it;
  pending.erase(it);
  for (std::uint32_t l = 0; l < 32; ++l) {
    if (!(mask >> l & 1u) || l == lane) continue;
    done.waiter[l]->result = warp_result(done.arrivals, l);
    wake(done.waiter[l]);
  }
  ++events_;
  return warp_result(done.arrivals, lane);
}

std::uint32_t block_scheduler::activemask(thread_ctx& t) {
  const std::uint32_t w = t.warp_id();
  warps_[w].activemask_waiting |= 1u << t.lane_id();
  suspend(t, wait_kind::activemask);  // check_activemask runs once every lane has parked
  return std::uint32_t(t.fiber().result);
}

void block_scheduler::check_activemask(std::uint32_t w) {
  warp_slot& slot = warps_[w];
  const std::uint32_t live = state_.warp_live[w];
  if ((live & ~slot.parked) != 0) return;  // some lane still runs or is unstarted
  const std::uint32_t result = slot.activemask_waiting & live;
  for (fiber_record* rec : fibers_) {
    if (rec->wait != wait_kind::activemask || rec->thread->warp_id() != w) continue;
    rec->result = result;
    rec->wait = wait_kind::yield;  // keep the bookkeeping run_fiber undoes
    wake(rec);
  }
  slot.activemask_waiting = 0;
}

// --- spinning and scheduling points ---

void block_scheduler::spin_yield(thread_ctx& t) {
  suspend(t, wait_kind::spin);
}

void block_scheduler::wait_durable(thread_ctx& t, durability_batch& batch) {
  std::uint64_t& ticket = t.fiber().durable_ticket;
  ticket = group_commit::ticket_pending;  // never complete until the worker hands the batch over
  batch.tickets.push_back(&ticket);
  // Polled with the spinners, but resumed only once the ticket is complete.
  while (!state_.durability->complete(ticket)) suspend(t, wait_kind::durability);
  state_.durability->rethrow_if_failed(ticket);
}

void block_scheduler::wait_device(thread_ctx& t, std::chrono::steady_clock::time_point ready) {
  t.fiber().device_ready = ready;
  while (std::chrono::steady_clock::now() < ready) suspend(t, wait_kind::device);
}

void block_scheduler::maybe_yield(thread_ctx& t) {
  if (det_->yield_at_point()) suspend(t, wait_kind::yield);
}

// --- the timed schedule ---

void block_scheduler::timed_stop_at_record(timed_slot& slot, std::uint32_t w, std::uint32_t lane) {
  slot.lanes |= 1u << lane;
  slot.seq[lane] = slot.next_seq++;
  if (!slot.touched) {
    slot.touched = true;
    touched_.push_back(w);
  }
}

void block_scheduler::timed_stop_at(timed_slot& slot, std::uint32_t w, std::uint32_t lane, const timed_op& op) {
  slot.ops[lane] = op;
  slot.ops_hold_row = false;
  timed_stop_at_record(slot, w, lane);
}

timed_op* block_scheduler::stop_ops(std::uint32_t w, std::uint32_t lanes, bool& uniform) {
  timed_slot& slot = timed_[w];
  uniform = false;
  if (lanes == 0) return slot.ops.data();
  const auto first = std::uint32_t(std::countr_zero(lanes));
  const std::uint16_t k = slot.at[first];
  const std::uint16_t* rec = &recorded(w, 0);
  bool one_row = true;
  if (lanes == ~0u) {  // a whole warp: an OR over the lanes, which the compiler vectorizes
    std::uint32_t off_row = 0;
    for (std::uint32_t l = 0; l < warp_size; ++l) off_row |= std::uint32_t(rec[l] == 0) | std::uint32_t(slot.at[l] != k);
    one_row = off_row == 0;
  } else {
    for (std::uint32_t m = lanes; m != 0 && one_row; m &= m - 1) {
      const auto l = std::uint32_t(std::countr_zero(m));
      one_row = rec[l] != 0 && slot.at[l] == k;
    }
  }
  if (one_row && rows_.rows_of(w)) return &recorded_op(w, 0, k);
  if (one_row) {  // a summarized row: the lanes' records rebuilt from it (the others' stops stay)
    const run_ahead_rows::summary& r = rows_.summary_of(w, k);
    const auto base = reinterpret_cast<std::uintptr_t>(r.lead.addr);
    const auto stride = std::uintptr_t(r.stride);
    uniform = true;
    if (lanes == ~0u && slot.ops_hold_row && run_ahead_rows::same_but_address(slot.ops[0], r.lead)) {
      // The last row rebuilt here was the same operation (a loop): only
      // the addresses change.
      for (std::uint32_t l = 0; l < warp_size; ++l) slot.ops[l].addr = reinterpret_cast<const void*>(base + stride * l);
    } else if (lanes == ~0u) {
      for (std::uint32_t l = 0; l < warp_size; ++l) {
        slot.ops[l] = r.lead;
        slot.ops[l].addr = reinterpret_cast<const void*>(base + stride * l);
      }
      slot.ops_hold_row = true;
    } else {
      for (std::uint32_t m = lanes; m != 0; m &= m - 1) {
        const auto l = std::uint32_t(std::countr_zero(m));
        slot.ops[l] = r.lead;
        slot.ops[l].addr = reinterpret_cast<const void*>(base + stride * l);
      }
      slot.ops_hold_row = false;
    }
    return slot.ops.data();
  }
  slot.ops_hold_row = false;
  for (std::uint32_t m = lanes; m != 0; m &= m - 1) {
    const auto l = std::uint32_t(std::countr_zero(m));
    if (recorded(w, l) != 0) slot.ops[l] = stop_op(w, l);
  }
  return slot.ops.data();
}

void block_scheduler::clear_stop_work(std::uint32_t w, std::uint32_t lanes) {
  timed_slot& slot = timed_[w];
  for (std::uint32_t m = lanes; m != 0; m &= m - 1) {
    const auto l = std::uint32_t(std::countr_zero(m));
    if (recorded(w, l) == 0) {
      slot.ops[l].work = 0;
      slot.ops_hold_row = false;
      continue;
    }
    begin_records(w);  // a record changes: the warp needs its rows (summarized again after the next run)
    recorded_op(w, l, slot.at[l]).work = 0;
  }
}

void block_scheduler::timed_park(thread_ctx& t, const timed_op& op) {
  if (checking_off_fiber_) throw_wait_in_condition();
  const std::uint32_t w = t.warp_id(), lane = t.lane_id();
  timed_slot& slot = timed_[w];
  slot.fiber[lane] = &t.fiber();
  slot.at[lane] = 0;
  if (recorded(w, lane) == 0) {
    timed_stop_at(slot, w, lane, op);
  } else {  // after its recorded loads (a full record parks at once: there is room)
    begin_records(w);  // lent since its first record of this run; summarized only after the run
    recorded_op(w, lane, recorded(w, lane)++) = op;
    timed_stop_at_record(slot, w, lane);
  }
  suspend(t, wait_kind::timed);
}

bool block_scheduler::timed_has_recorded(const thread_ctx& t) const {
  return recorded(t.warp_id(), t.lane_id()) != 0;
}

void block_scheduler::throw_wait_in_condition() {
  throw kernel_usage_error(
      "a spin_wait condition waited (a barrier, warp collective, activemask or fence inside it): in the timed "
      "schedule (and in the parallel one for spin_wait_long) a condition is checked off its thread's fiber and "
      "may only read and update memory");
}

void block_scheduler::timed_restop(thread_ctx& t, const timed_op& op) {
  const std::uint32_t w = t.warp_id(), lane = t.lane_id();
  // Resuming and parking again would leave the lane parked and suspended
  // as it is, count one event, and check a pending activemask().
  timed_stop_at(timed_[w], w, lane, op);
  ++events_;
  if (warps_[w].activemask_waiting) check_activemask(w);
}

void block_scheduler::timed_hold(thread_ctx& t) {
  const std::uint32_t w = t.warp_id(), lane = t.lane_id();
  timed_slot& slot = timed_[w];
  slot.fiber[lane] = &t.fiber();
  slot.at[lane] = 0;
  timed_stop_at_record(slot, w, lane);
  suspend(t, wait_kind::timed);
}

void block_scheduler::run_woken() {
  while (runnable_head_ < runnable_.size()) run_fiber(runnable_[runnable_head_++]);
  runnable_.clear();
  runnable_head_ = 0;
  if (rows_.any_written()) summarize_written();  // every lane that ran has stopped again
}

void block_scheduler::stage() {
  while (state_.next_unstarted < state_.nthreads && !L_->abort.load(std::memory_order_relaxed)) {
    run_fiber(new_carrier());
    // Threads start in rank order: at a warp's end its rows may go back to
    // the pool and be the next warp's, still in the host's caches.
    if (rows_.any_written() && state_.next_unstarted % warp_size == 0 && runnable_head_ == runnable_.size())
      summarize_written();
  }
  run_woken();
}

bool block_scheduler::advance_recorded(timed_slot& slot, std::uint32_t w, std::uint32_t lanes) {
  const std::uint16_t* rec = &recorded(w, 0);
  std::uint64_t seq = slot.next_seq;
  if (lanes == ~0u) {  // a whole warp: loops over the lanes, which the compiler vectorizes
    std::uint32_t short_of = 0;  // some lane has no further record
    for (std::uint32_t l = 0; l < warp_size; ++l) short_of |= std::uint32_t(slot.at[l] + 1 >= rec[l]);
    if (short_of != 0) return false;
    for (std::uint32_t l = 0; l < warp_size; ++l) ++slot.at[l], slot.seq[l] = seq + l;
    seq += warp_size;
  } else {
    for (std::uint32_t m = lanes; m != 0; m &= m - 1)
      if (const auto l = std::uint32_t(std::countr_zero(m)); slot.at[l] + 1 >= rec[l]) return false;
    for (std::uint32_t m = lanes; m != 0; m &= m - 1) {
      const auto l = std::uint32_t(std::countr_zero(m));
      ++slot.at[l];
      slot.seq[l] = seq++;
    }
  }
  // What timed_stop_at_record does for each lane, in lane order.
  slot.next_seq = seq;
  slot.lanes |= lanes;
  if (!slot.touched) {
    slot.touched = true;
    touched_.push_back(w);
  }
  return true;
}

void block_scheduler::resume_lanes(std::uint32_t w, std::uint32_t lanes) {
  timed_slot& slot = timed_[w];
  slot.lanes &= ~lanes;
  if (advance_recorded(slot, w, lanes)) return run_woken();
  for (std::uint32_t m = lanes; m != 0; m &= m - 1) {
    const auto lane = std::uint32_t(std::countr_zero(m));
    // A lane that recorded its next operation already stops there without
    // running, where and when it would have stopped had it run.
    if (slot.at[lane] + 1 < recorded(w, lane)) {
      ++slot.at[lane];
      timed_stop_at_record(slot, w, lane);
      continue;
    }
    recorded(w, lane) = slot.at[lane] = 0;
    fiber_record* f = slot.fiber[lane];
    if (f->spin_condition) {  // a spin try: check the condition here, resume only if it held
      checking_off_fiber_ = true;
      const bool resume = f->thread->retry_spin_off_fiber();
      checking_off_fiber_ = false;
      if (!resume) continue;
    }
    run_fiber(f);
    if (L_->abort.load(std::memory_order_relaxed)) return;
  }
  run_woken();
}

void block_scheduler::threads_exited(std::uint32_t w, std::uint32_t lanes, dim3 reporter) {
  ++events_;
  for (const pending_collective& p : warps_[w].pending)
    if (const std::uint32_t broken = p.arrivals.mask & lanes)
      throw kernel_usage_error(fmt::format(
          "lane {} of warp {} exited while lanes {:#010x} wait for it in {} with mask {:#010x} "
          "(noticed by the carrier of thread {})",
          std::countr_zero(broken), w, p.arrived, to_string(p.arrivals.op), p.arrivals.mask,
          coords(reporter)));
  if (barrier_arrived_ != 0 && barrier_arrived_ == state_.live) complete_barrier();
  if (warps_[w].activemask_waiting) check_activemask(w);
}

// --- running the block ---

block_scheduler::outcome block_scheduler::run() {
  return det_ ? run_deterministic() : run_parallel();
}

block_scheduler::outcome block_scheduler::run_parallel() {
  const std::uint64_t before = events_, passes_before = spin_passes_;
  for (;;) {
    if (L_->abort.load(std::memory_order_relaxed)) return outcome::stalled;
    if (runnable_head_ < runnable_.size()) {
      run_fiber(runnable_[runnable_head_++]);
      if (runnable_head_ == runnable_.size()) {
        runnable_.clear();
        runnable_head_ = 0;
      }
    } else if (state_.next_unstarted < state_.nthreads) {
      run_fiber(new_carrier());
    } else {
      break;
    }
  }
  if (idle()) return outcome::finished;
  if (spinning_.empty()) throw_deadlock();
  poll_spinners();
  if (idle()) return outcome::finished;
  if (events_ != before) return outcome::progressed;
  return spin_passes_ != passes_before ? outcome::passed : outcome::stalled;
}

block_scheduler::outcome block_scheduler::poll_spinners() {
  const std::uint64_t before = events_ + spin_passes_;
  // A thread waiting for durability holds a ticket issued after the flushes
  // completed by then, so while no flush completes it stays unready. Every
  // resident block is polled in each of its worker's rounds; looking at each
  // parked thread's record there (a cache miss each, thousands of threads
  // in a persisting kernel) cost more than the threads' own work.
  if (state_.durability && durable_waiters_ == spinning_.size()) {
    const std::uint64_t completed = state_.durability->completed();
    if (completed == polled_at_completed_ && !L_->abort.load(std::memory_order_relaxed)) return outcome::stalled;
    polled_at_completed_ = completed;
  } else {
    polled_at_completed_ = no_poll_yet;
  }
  // Swapped with a member, so that neither list allocates once warm.
  std::vector<fiber_record*>& round = polling_;
  round.clear();
  round.swap(spinning_);
  if (det_) det_->shuffle(round.begin(), round.end());
  const auto now = device_waiters_ != 0 ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  long_waiters_ = 0;
  for (fiber_record* rec : round) {
    bool not_yet = (rec->wait == wait_kind::durability && !state_.durability->complete(rec->durable_ticket)) ||
                   (rec->wait == wait_kind::device && now < rec->device_ready);
    if (!not_yet && rec->spin_condition && !L_->abort.load(std::memory_order_relaxed)) {
      checking_off_fiber_ = true;  // a condition that tries to wait is refused by name
      not_yet = !rec->thread->check_spin_off_fiber();
      checking_off_fiber_ = false;
    }
    if (not_yet || L_->abort.load(std::memory_order_relaxed)) {
      spinning_.push_back(rec);  // keep it findable for cancel()
      if (rec->spin_condition) ++long_waiters_;
      continue;
    }
    run_fiber(rec);
  }
  return events_ + spin_passes_ != before ? outcome::progressed : outcome::stalled;
}

block_scheduler::outcome block_scheduler::run_deterministic() {
  // Remove drained entries so indices below address live runnable fibers.
  runnable_.erase(runnable_.begin(), runnable_.begin() + std::ptrdiff_t(runnable_head_));
  runnable_head_ = 0;
  const auto ready = std::uint32_t(runnable_.size());
  const std::uint32_t choices = ready + (state_.next_unstarted < state_.nthreads ? 1u : 0u);
  if (choices != 0) {
    const std::uint32_t pick = det_->pick(choices);
    if (state_.observer) state_.observer->schedule_choice(state_.block_linear, choices, pick);
    if (pick < ready) {
      fiber_record* rec = runnable_[pick];
      runnable_.erase(runnable_.begin() + pick);
      run_fiber(rec);
    } else {
      run_fiber(new_carrier());
    }
    return idle() ? outcome::finished : outcome::progressed;
  }
  if (idle()) return outcome::finished;
  if (spinning_.empty()) throw_deadlock();
  const outcome o = poll_spinners();
  return idle() ? outcome::finished : o;
}

void block_scheduler::cancel() {
  warps_dirty_ = true;
  // A lane unwinding may still record: every warp gets rows to write into.
  for (std::uint32_t w = 0; w < rows_.warps(); ++w) rows_.hold(w, lanes_of(w));
  // Copy: cancelling a fiber finishes it, which edits fibers_.
  const std::vector<fiber_record*> victims = fibers_;
  for (fiber_record* rec : victims) {
    if (rec->done) continue;
    cancel_fiber(*rec, sched_);
    if (rec->done) carriers_.release(rec);
  }
  fibers_.clear();
  runnable_.clear();
  runnable_head_ = 0;
  spinning_.clear();
  durable_waiters_ = 0;
  device_waiters_ = 0;
  barrier_waiters_.clear();
}

std::string block_scheduler::who(const thread_ctx& t) const {
  return fmt::format("thread {} (warp {} lane {})", coords(t.thread_idx()), t.warp_id(), t.lane_id());
}

std::string block_scheduler::describe_waits() const {
  std::string out;
  for (const fiber_record* rec : fibers_) {
    if (!rec->thread || rec->wait == wait_kind::none) continue;
    const thread_ctx& t = *rec->thread;
    out += "\n  " + who(t) + " waits in ";
    switch (rec->wait) {
      case wait_kind::barrier:
        out += fmt::format("{}: {} of {} live threads arrived", describe(rec->wait),
                           barrier_arrived_, state_.live);
        break;
      case wait_kind::warp_collective: {
        std::uint32_t arrived = 0;
        for (const auto& p : warps_[t.warp_id()].pending)
          if (p.arrivals.mask == rec->wait_mask) arrived = p.arrived;
        out += fmt::format("{} with mask {:#010x}: lanes {:#010x} arrived, lanes {:#010x} missing",
                           to_string(rec->op), rec->wait_mask, arrived, rec->wait_mask & ~arrived);
        break;
      }
      default:
        out += describe(rec->wait);
    }
  }
  return out;
}

void block_scheduler::throw_deadlock() const {
  throw deadlock_error(fmt::format("kernel '{}': deadlock in block {}: every live thread waits "
                                   "and none can proceed:{}",
                                   L_->cfg->name, coords(state_.block_idx), describe_waits()));
}

}  // namespace gpmx::cpu::detail
