// The out-of-line half of thread_ctx and block_state: everything that may
// suspend the calling thread goes to its block's scheduler.
#include "gpmx/exec/cpu/thread_ctx.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <utility>
#include <optional>
#include <fmt/format.h>

#include "block_scheduler.hpp"
#include "group_commit.hpp"
#include "gpmx/exec/device_wait.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cpu {

detail::barrier_result thread_ctx::barrier(std::uint32_t pred, const source_loc& loc) {
  // The arrival is the thread's event; the barrier itself is the scheduling point.
  if (obs_) obs_->barrier(coords(), loc);
  if (b_->timed) timed_point(timed_kind::barrier, scope::block, 0, nullptr, 0, loc);
  prepare_to_wait();
  return b_->scheduler->arrive_barrier(*this, pred);
}

std::uint64_t thread_ctx::warp(detail::warp_op op, std::uint32_t mask, std::uint64_t value, int arg,
                               int width, const source_loc& loc) {
  if (obs_) obs_->warp_collective(coords(), op, mask, loc);
  if (b_->timed) timed_point(timed_kind::warp_collective, scope::block, std::uint8_t(op), nullptr, 0, loc);
  prepare_to_wait();
  return b_->scheduler->warp_collective(*this, op, mask, value, arg, width);
}

std::uint32_t thread_ctx::activemask() {
  if (b_->timed) timed_point(timed_kind::activemask, scope::block, 0, nullptr, 0, source_loc::current());
  prepare_to_wait();
  return b_->scheduler->activemask(*this);
}

namespace {
// Another try of a spin condition costs what its last read costs: an atomic
// load (sub = atomic_op::load) or a load through a view (none).
timed_op spin_try_op(const detail::fiber_record& f) {
  // Every spin try has this one place: lanes retrying any spin_wait issue
  // together.
  static constexpr source_loc spin_try = source_loc::current();
  return timed_op{timed_kind::spin, f.spin_probe_space, f.spin_probe_scope,
                  std::uint8_t(f.spin_probe_atomic ? atomic_op::load : atomic_op::none), f.spin_probe_bytes,
                  f.spin_probe, 0, f.spin_probe_acquire, spin_try};
}
}  // namespace

void thread_ctx::spin_passed() { b_->scheduler->spin_passed(); }

void thread_ctx::spin_yield() {
  if (b_->timed) return timed_stop(spin_try_op(*fiber_));
  prepare_to_wait();
  b_->scheduler->spin_yield(*this);
}

void thread_ctx::spin_retried_off_fiber(bool (*condition)(void*), void* arg) {
  detail::fiber_record& f = *fiber_;
  // Cleared however the wait ends (a cancelled launch unwinds from the park).
  struct clear_on_exit {
    detail::fiber_record& f;
    ~clear_on_exit() {
      f.spin_condition = nullptr;
      f.spin_condition_arg = nullptr;
    }
  } clear{f};
  f.spin_condition = condition;
  f.spin_condition_arg = arg;
  // Resumed only once the condition held or threw: by resume_lanes after
  // retry_spin_off_fiber (timed), by poll_spinners after
  // check_spin_off_fiber (parallel, spin_wait_long).
  spin_yield();
  if (f.spin_error) std::rethrow_exception(std::exchange(f.spin_error, nullptr));
}

bool thread_ctx::spin_parks_off_fiber() const { return b_->scheduler->checks_spins_off_fiber(); }

bool thread_ctx::check_spin_off_fiber() {
  detail::fiber_record& f = *fiber_;
  in_spin_ = true;
  try {
    const bool ready = f.spin_condition(f.spin_condition_arg);
    in_spin_ = false;
    return ready;
  } catch (...) {
    in_spin_ = false;
    f.spin_error = std::current_exception();
    return true;  // the fiber rethrows it
  }
}

bool thread_ctx::retry_spin_off_fiber() {
  if (check_spin_off_fiber()) return true;
  detail::fiber_record& f = *fiber_;
  // What the resumed lane would do: stop at its next try.
  timed_op op = spin_try_op(f);
  op.work = work_;
  work_ = 0;
  prepare_to_wait();
  b_->scheduler->timed_restop(*this, op);
  return false;
}

void thread_ctx::spin_begin() {
  fiber_->spin_probe = nullptr;
  // The condition's first check reads memory as the warp's issue finds it:
  // loads recorded before it must issue first.
  timed_wait_for_recorded();
}

void thread_ctx::spin_read_once() {
  const detail::fiber_record& f = *fiber_;
  if (!f.spin_probe) return;  // it read nothing through gpmx: nothing to time
  const timed_kind k = f.spin_probe_acquire ? timed_kind::flag_acquire
                       : f.spin_probe_atomic ? timed_kind::atomic
                                             : timed_kind::load;
  static constexpr source_loc first_check = source_loc::current();  // apart from the retries
  timed_stop(timed_op{k, f.spin_probe_space, f.spin_probe_scope,
                      std::uint8_t(k == timed_kind::atomic ? atomic_op::load : atomic_op::none), f.spin_probe_bytes,
                      f.spin_probe, 0, false, first_check});
}

void thread_ctx::deterministic_yield(std::uint32_t what, std::uint32_t bytes, const void* p, source_loc loc) {
  timed_op op{timed_kind(what & 0xff), mem_space((what >> 8) & 0xff), scope((what >> 16) & 0xff),
              std::uint8_t(what >> 24), bytes, p, 0, false, loc};
  // An atomic on a raw pointer carries no space: the timed model must know
  // a block's shared memory, which a GPU serves in the SM, not at the L2.
  if (b_->timed) op.space = b_->timed_space(op.addr, op.space);
  if (in_spin_) {
    // A persist acquire reads its flag as an atomic load does.
    if (op.kind == timed_kind::atomic || op.kind == timed_kind::load || op.kind == timed_kind::flag_acquire) {
      detail::fiber_record& f = *fiber_;
      f.spin_probe = op.addr;
      f.spin_probe_bytes = op.bytes;
      f.spin_probe_space = op.space;
      f.spin_probe_atomic = op.kind != timed_kind::load;
      f.spin_probe_acquire = op.kind == timed_kind::flag_acquire;
      f.spin_probe_scope = op.kind == timed_kind::load ? scope::device : op.sc;
    }
    return;
  }
  if (b_->timed) {
    // A plain load needs no issue before it is performed, nor a plain store
    // (already made) before the lane goes on (run-ahead, see timing.hpp):
    // the lane records it and goes on to its next operation.
    const bool ahead = b_->run_ahead != 0 && (op.kind == timed_kind::load ||
                                              (op.kind == timed_kind::store && b_->run_ahead_stores));
    if (!ahead) return timed_stop(op);
    // The same record a view's inline call writes (op.sc is device, op.sub
    // none for a plain load or store).
    return record_ahead(op.kind, op.space, op.addr, op.bytes, op.loc);
  }
  prepare_to_wait();
  b_->scheduler->maybe_yield(*this);
}

void thread_ctx::timed_wait_for_recorded() {
  if (b_->run_ahead != 0 && b_->scheduler->timed_has_recorded(*this)) hold_for_issue();
}

void thread_ctx::timed_thread_end() {
  discard_work();
  // The thread ends once its warp has issued its last load, not before.
  timed_wait_for_recorded();
}

timed_op* thread_ctx::begin_ahead_records() { return b_->scheduler->begin_records(warp_id()); }

void thread_ctx::hold_for_issue() {
  prepare_to_wait();
  b_->scheduler->timed_hold(*this);
}

void thread_ctx::timed_stop(timed_op op) {
  op.work = work_;
  work_ = 0;
  prepare_to_wait();
  b_->scheduler->timed_park(*this, op);
}

void thread_ctx::persist_range(const void* p, std::size_t bytes, source_loc loc) {
  if (bytes == 0) return;
  const persist_domain* d = find_persist_domain(p, bytes);
  if (!d)
    throw kernel_usage_error(fmt::format("persist_range of {} bytes at {}: the range is not inside one mapped "
                                         "pool",
                                         bytes, p));
  if (obs_) sync_point(timed_kind::persist_range, scope::system, 0, p, bytes, loc, mem_space::pm);
  std::optional<std::chrono::steady_clock::time_point> device_ready;
  if (b_->durability && !in_spin_ && detail::group_commit::gather_range(d, p, bytes, *b_->batch)) {
    prepare_to_wait();
    b_->scheduler->wait_durable(*this, *b_->batch);
  } else if (parks_for_device()) {
    device_wait_scope scope;
    d->persist_range(p, bytes);
    device_ready = scope.deadline();
  } else {
    d->persist_range(p, bytes);
  }
  // Reported after the flush with no yield between: every store reported
  // before it is covered. A device's wait comes after the report.
  if (obs_) obs_->persist_range(coords(), p, bytes, loc);
  if (device_ready) wait_device(*device_ready);
}

void thread_ctx::forget_pm_stores(const void* p, std::size_t bytes) {
  if (bytes == 0 || pm_lines_->empty()) return;
  const auto first = reinterpret_cast<std::uintptr_t>(p) / persist_line_bytes;
  const auto last = (reinterpret_cast<std::uintptr_t>(p) + bytes - 1) / persist_line_bytes;
  pm_lines_->erase(std::remove_if(pm_lines_->begin(), pm_lines_->end(),
                                  [&](const pm_line& l) { return l.line >= first && l.line <= last; }),
                   pm_lines_->end());
  pm_dirty_ = !pm_lines_->empty();
}

void thread_ctx::persist_own_lines() {
  // Group commit usually took every line: nothing to flush, no device to wait for.
  if (pm_lines_->empty()) return;
  if (!parks_for_device()) return persist_lines(*pm_lines_);
  std::optional<std::chrono::steady_clock::time_point> ready;
  {
    device_wait_scope scope;
    persist_lines(*pm_lines_);
    ready = scope.deadline();
  }
  if (ready) wait_device(*ready);
}

void thread_ctx::wait_device(std::chrono::steady_clock::time_point ready) {
  prepare_to_wait();
  b_->scheduler->wait_device(*this, ready);
}

void thread_ctx::persist_grouped(bool wait) {
  // Without a wait the lines get no ticket: nobody is woken by their flush.
  const bool took = detail::group_commit::gather(*pm_lines_, *b_->batch);
  persist_own_lines();  // what the group left: domains that flush cheaply
  if (!took || !wait) return;
  prepare_to_wait();
  b_->scheduler->wait_durable(*this, *b_->batch);
}

// --- observed events ---

void thread_ctx::observe_store(mem_space s, const void* p, std::size_t bytes, const source_loc& loc) {
  // The store is done: report it before yielding, so no other thread's event
  // comes between the store and its report.
  obs_->access(coords(), s, access_kind::store, p, bytes, loc);
  if (b_->scheduling_spaces & space_bit(s)) sync_point(timed_kind::store, scope::device, 0, p, bytes, loc, s);
}

void thread_ctx::observe_load(mem_space s, const void* p, std::size_t bytes, const source_loc& loc) {
  // The timed schedule's common case (a run-ahead load the observer does
  // not hear of) never comes here: record_load writes its record inline.
  if (b_->scheduling_spaces & space_bit(s))  // the load follows with no yield between
    sync_point(timed_kind::load, scope::device, 0, p, bytes, loc, s);
  if (b_->reported_load_spaces & space_bit(s)) obs_->access(coords(), s, access_kind::load, p, bytes, loc);
}

void thread_ctx::observe_ordering(ordering_op op, const source_loc& loc) {
  sync_point(timed_kind::ordering, scope::system, std::uint8_t(op), nullptr, 0, loc, mem_space::pm);
  obs_->ordering(coords(), op, loc);
}

void persist_lines(pm_line_list& lines) {
  if (lines.empty()) return;
  // Sort by domain and line; hand each domain its distinct lines at once.
  // A thread records in store order, so the lines often come sorted, and a
  // fence is frequent enough that the check and a reused buffer matter.
  const auto before = [](const pm_line& a, const pm_line& b) {
    return a.domain != b.domain ? std::less<>()(a.domain, b.domain) : a.line < b.line;
  };
  if (!std::is_sorted(lines.begin(), lines.end(), before)) std::sort(lines.begin(), lines.end(), before);
  thread_local std::vector<std::uintptr_t> run;
  std::size_t i = 0;
  while (i < lines.size()) {
    run.clear();
    const persist_domain* d = lines[i].domain;
    for (; i < lines.size() && lines[i].domain == d; ++i)
      if (run.empty() || run.back() != lines[i].line) run.push_back(lines[i].line);
    d->persist_lines(run.data(), run.size());
  }
  lines.clear();
}

namespace detail {

void block_state::publish_exits(std::uint32_t from, std::uint32_t to, dim3 reporter) {
  live -= to - from;
  // The whole block has ended and nobody waits: nothing reads the live
  // masks again before the next block resets them.
  if (live == 0 && suspended == 0) return;
  auto lanes_of = [](std::uint32_t lo, std::uint32_t hi) {  // lanes [lo, hi) of one warp
    return (hi == 32 ? ~0u : (1u << hi) - 1u) & ~((1u << lo) - 1u);
  };
  if (!start_order && suspended == 0) {
    // Nobody waits on anything: only the live masks change (the common case,
    // once per block for kernels without barriers).
    for (std::uint32_t w = from / warp_size; w * warp_size < to; ++w)
      warp_live[w] &= ~lanes_of(std::max(from, w * warp_size) - w * warp_size,
                                std::min(to, (w + 1) * warp_size) - w * warp_size);
    return;
  }
  auto exited = [&](std::uint32_t warp, std::uint32_t lanes) {
    warp_live[warp] &= ~lanes;
    if (suspended != 0) scheduler->threads_exited(warp, lanes, reporter);
  };
  if (!start_order) {  // a contiguous range of ranks: whole warps at a time
    for (std::uint32_t w = from / warp_size; w * warp_size < to; ++w)
      exited(w, lanes_of(std::max(from, w * warp_size) - w * warp_size,
                         std::min(to, (w + 1) * warp_size) - w * warp_size));
    return;
  }
  for (std::uint32_t i = from; i < to; ++i) {
    const std::uint32_t rank = start_order[i];
    exited(rank / warp_size, 1u << (rank % warp_size));
  }
}

void note_failing_thread(fiber_record& fiber, dim3 thread) { fiber.failed_thread = thread; }

std::byte* block_state::static_shared_at(std::size_t k, std::size_t bytes, std::size_t align) {
  if (k < static_slots.size()) {
    if (static_slots[k].bytes != bytes)
      throw kernel_usage_error(fmt::format(
          "static shared array #{} is {} bytes in one thread and {} bytes in another; every thread "
          "of a block must declare the same GPMX_SHARED arrays in the same order",
          k, static_slots[k].bytes, bytes));
    return static_shared + static_slots[k].offset;
  }
  const std::size_t offset = (static_shared_used + align - 1) / align * align;
  if (offset + bytes > static_shared_capacity)
    throw kernel_usage_error(fmt::format(
        "static shared memory: array #{} of {} bytes does not fit; the block already uses {} of {} bytes",
        k, bytes, static_shared_used, static_shared_capacity));
  static_slots.push_back({offset, bytes});
  static_shared_used = offset + bytes;
  return static_shared + offset;
}

}  // namespace detail
}  // namespace gpmx::cpu
