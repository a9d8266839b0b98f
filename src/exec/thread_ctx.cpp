// The out-of-line half of thread_ctx and block_state: everything that may
// suspend the calling thread goes to its block's scheduler.
#include "gpmx/exec/cpu/thread_ctx.hpp"

#include <fmt/format.h>

#include "block_scheduler.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cpu {

detail::barrier_result thread_ctx::barrier(std::uint32_t pred) {
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

void thread_ctx::spin_yield(std::uint32_t attempt) {
  prepare_to_wait();
  b_->scheduler->spin_yield(*this, attempt);
}

void thread_ctx::deterministic_yield() {
  if (in_spin_) return;
  prepare_to_wait();
  b_->scheduler->maybe_yield(*this);
}

namespace detail {

void block_state::publish_exits(std::uint32_t from, std::uint32_t to, thread_ctx& by) {
  live -= to - from;
  std::uint32_t exited_lanes_warp = ~0u, exited_lanes = 0;
  auto flush_warp = [&] {
    if (exited_lanes_warp == ~0u) return;
    warp_live[exited_lanes_warp] &= ~exited_lanes;
    if (suspended != 0) scheduler->threads_exited(exited_lanes_warp, exited_lanes, by);
  };
  for (std::uint32_t i = from; i < to; ++i) {
    const std::uint32_t rank = start_order ? start_order[i] : i;
    if (rank / warp_size != exited_lanes_warp) {
      flush_warp();
      exited_lanes_warp = rank / warp_size;
      exited_lanes = 0;
    }
    exited_lanes |= 1u << (rank % warp_size);
  }
  flush_warp();
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
