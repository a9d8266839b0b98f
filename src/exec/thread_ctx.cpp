// The out-of-line half of thread_ctx and block_state: everything that may
// suspend the calling thread goes to its block's scheduler.
#include "gpmx/exec/cpu/thread_ctx.hpp"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "block_scheduler.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/trace/recorder.hpp"

namespace gpmx::cpu {

detail::barrier_result thread_ctx::barrier(std::uint32_t pred, const source_loc& loc) {
  if (rec_) {  // the arrival is the thread's event; the barrier itself is the scheduling point
    trace::event e;
    e.kind = trace::event_kind::barrier;
    rec_->append(e, coords(), loc);
  }
  prepare_to_wait();
  return b_->scheduler->arrive_barrier(*this, pred);
}

std::uint64_t thread_ctx::warp(detail::warp_op op, std::uint32_t mask, std::uint64_t value, int arg,
                               int width) {
  prepare_to_wait();
  return b_->scheduler->warp_collective(*this, op, mask, value, arg, width);
}

std::uint32_t thread_ctx::activemask() {
  prepare_to_wait();
  return b_->scheduler->activemask(*this);
}

void thread_ctx::spin_yield() {
  prepare_to_wait();
  b_->scheduler->spin_yield(*this);
}

void thread_ctx::deterministic_yield() {
  if (in_spin_) return;
  prepare_to_wait();
  b_->scheduler->maybe_yield(*this);
}

// --- the trace mode ---

trace::thread_coords thread_ctx::coords() const {
  return {b_->block_linear, warp_id(), lane_id(), global_id()};
}

void thread_ctx::trace_pm_write(const void* p, std::size_t bytes, const source_loc& loc) {
  // The store is done: record it before yielding, so no other thread's event
  // comes between the store and its record.
  trace::event e;
  e.kind = trace::event_kind::pm_write;
  e.address = reinterpret_cast<std::uintptr_t>(p);
  e.bytes = bytes;
  e.value_bytes = std::uint8_t(std::min(bytes, trace::max_value_bytes));
  std::memcpy(e.data.data(), p, e.value_bytes);
  rec_->append(e, coords(), loc);
  deterministic_yield();
}

void thread_ctx::trace_pm_read(const void* p, std::size_t bytes, const source_loc& loc) {
  deterministic_yield();  // the load follows this call with no yield between
  trace::event e;
  e.kind = trace::event_kind::pm_read;
  e.address = reinterpret_cast<std::uintptr_t>(p);
  e.bytes = bytes;
  rec_->append(e, coords(), loc);
}

void thread_ctx::trace_ordering(trace::event_kind kind, const source_loc& loc) {
  deterministic_yield();
  trace::event e;
  e.kind = kind;
  rec_->append(e, coords(), loc);
}

void thread_ctx::trace_flag(trace::event_kind kind, scope s, const void* flag, std::size_t bytes,
                            std::uint64_t value, const source_loc& loc) {
  trace::event e;
  e.kind = kind;
  e.scope_of = s;
  e.address = reinterpret_cast<std::uintptr_t>(flag);
  e.bytes = bytes;
  e.value = value;
  if (kind == trace::event_kind::pacq) e.reads_from = rec_->release_read(e.address, value);
  rec_->append(e, coords(), loc);
}

void thread_ctx::trace_atomic(trace::atomic_op op, scope s, const void* p, std::size_t bytes,
                              std::uint64_t operand, std::uint64_t result, const source_loc& loc) {
  trace::event e;
  e.kind = trace::event_kind::atomic;
  e.op = op;
  e.scope_of = s;
  e.address = reinterpret_cast<std::uintptr_t>(p);
  e.bytes = bytes;
  e.value = operand;
  e.result = result;
  rec_->append(e, coords(), loc);
}

void persist_lines(std::vector<pm_line>& lines) {
  if (lines.empty()) return;
  // Sort by domain and line; hand each domain its distinct lines at once.
  std::sort(lines.begin(), lines.end(), [](const pm_line& a, const pm_line& b) {
    return a.domain != b.domain ? std::less<>()(a.domain, b.domain) : a.line < b.line;
  });
  std::vector<std::uintptr_t> run;
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
