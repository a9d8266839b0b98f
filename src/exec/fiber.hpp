#pragma once
// One fiber that carries GPU threads of a block, and the only two places
// where control switches between it and its worker's scheduler. Both switches
// tell AddressSanitizer and ThreadSanitizer about the stack change.
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <functional>

#include "gpmx/exec/cpu/block_state.hpp"
#include "stack_pool.hpp"

namespace gpmx::cpu::detail {

// Thrown into a suspended fiber to unwind it when its launch is abandoned.
struct fiber_cancelled {};

struct fiber_record {
  boost::context::fiber self;  // this fiber, while suspended
  boost::context::fiber back;  // the scheduler, while this fiber runs
  thread_ctx* thread = nullptr;  // the GPU thread on this fiber, if any
  bool done = false;

  // What the thread waits for and what it is handed when woken.
  wait_kind wait = wait_kind::none;
  warp_op op = warp_op::syncwarp;
  std::uint32_t wait_mask = 0;
  std::uint64_t result = 0;
  barrier_result barrier{0, 0};
  std::uint32_t spin_attempt = 0;
  dim3 failed_thread{0, 0, 0};  // the thread whose exception ended the fiber

  // Sanitizer bookkeeping.
  const void* stack_bottom = nullptr;
  std::size_t stack_size = 0;
  void* asan_fake_stack = nullptr;
  void* tsan_fiber = nullptr;
};

// The scheduler side of a worker: its own stack, as the sanitizers see it.
struct scheduler_stack {
  const void* bottom = nullptr;
  std::size_t size = 0;
  void* tsan_fiber = nullptr;
  void* asan_fake_stack = nullptr;
};

// Makes rec a fresh fiber that will run body(rec) when first resumed.
void create_fiber(fiber_record& rec, stack_pool& pool, scheduler_stack& sched,
                  std::function<void(fiber_record&)> body);
// Scheduler: runs rec until it suspends or ends (then rec.done is true).
void resume_fiber(fiber_record& rec, scheduler_stack& sched);
// Scheduler: unwinds a suspended fiber by throwing fiber_cancelled in it.
void cancel_fiber(fiber_record& rec, scheduler_stack& sched);
// Fiber: gives control back to the scheduler until resumed.
void suspend_fiber(fiber_record& rec, scheduler_stack& sched);
// Releases sanitizer state of a finished fiber.
void retire_fiber(fiber_record& rec);

}  // namespace gpmx::cpu::detail
