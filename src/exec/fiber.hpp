#pragma once
// One fiber that carries GPU threads of a block, and the only two places
// where control switches between it and its worker's scheduler. Both switches
// tell AddressSanitizer and ThreadSanitizer about the stack change.
#include <boost/context/fiber.hpp>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>

#include "gpmx/exec/cpu/block_state.hpp"
#include "stack_pool.hpp"

#if defined(GPMX_SANITIZER_address)
#include <sanitizer/asan_interface.h>
#define GPMX_ASAN 1
#endif
#if defined(GPMX_SANITIZER_thread)
#include <sanitizer/tsan_interface.h>
#define GPMX_TSAN 1
#endif

namespace gpmx::cpu::detail {

// Thrown into a suspended fiber to unwind it when its launch is abandoned.
struct fiber_cancelled {};

struct fiber_record {
  boost::context::fiber self;  // this fiber, while suspended
  boost::context::fiber back;  // the scheduler, while this fiber runs
  thread_ctx* thread = nullptr;  // the GPU thread on this fiber, if any
  bool done = false;
  bool parked = false;     // its block had no more threads; waits in the carrier pool
  bool retiring = false;   // the pool is closing: end instead of parking again
  std::uint32_t slot = 0;  // position in its block's list of live fibers
  block_scheduler* owner = nullptr;  // the block whose threads it runs

  // What the thread waits for and what it is handed when woken.
  wait_kind wait = wait_kind::none;
  warp_op op = warp_op::syncwarp;
  std::uint32_t wait_mask = 0;
  std::uint64_t result = 0;
  std::uint64_t durable_ticket = 0;  // wait_kind::durability: the group commit ticket
  std::chrono::steady_clock::time_point device_ready{};  // wait_kind::device: when the device is done
  barrier_result barrier{0, 0};
  dim3 failed_thread{0, 0, 0};  // the thread whose exception ended the fiber

  // Timed schedule, for the thread on this fiber (kept here, not in the
  // thread context, which the fast path wants small enough for registers):
  // the last atomic or view load of a spin_wait condition (what a further
  // try reads).
  const void* spin_probe = nullptr;
  std::uint32_t spin_probe_bytes = 0;
  mem_space spin_probe_space = mem_space::global;
  bool spin_probe_atomic = false;
  bool spin_probe_acquire = false;  // the read was a persist acquire, of this scope:
  scope spin_probe_scope = scope::device;
  // While the thread retries a spin_wait: its condition, which the scheduler
  // calls at each try (thread_ctx::timed_spin_wait), and what it threw.
  bool (*spin_condition)(void*) = nullptr;
  void* spin_condition_arg = nullptr;
  std::exception_ptr spin_error;

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
// Scheduler: unwinds a suspended fiber by throwing fiber_cancelled in it.
void cancel_fiber(fiber_record& rec, scheduler_stack& sched);
// Releases sanitizer state of a finished fiber.
void retire_fiber(fiber_record& rec);

// The two hot switches are inline: they run twice per thread per barrier.
// Called right before a switch away from the running stack to (bottom, size).
// fake_save is null when the running stack is about to end.
inline void before_switch([[maybe_unused]] void** fake_save, [[maybe_unused]] const void* bottom,
                          [[maybe_unused]] std::size_t size, [[maybe_unused]] void* tsan_target) {
#if defined(GPMX_ASAN)
  __sanitizer_start_switch_fiber(fake_save, bottom, size);
#endif
#if defined(GPMX_TSAN)
  __tsan_switch_to_fiber(tsan_target, 0);
#endif
}

// Called first thing after arriving on a stack.
inline void after_switch([[maybe_unused]] void* fake, [[maybe_unused]] const void** from_bottom,
                         [[maybe_unused]] std::size_t* from_size) {
#if defined(GPMX_ASAN)
  __sanitizer_finish_switch_fiber(fake, from_bottom, from_size);
#endif
}

// Scheduler: runs rec until it suspends or ends (then rec.done is true).
inline void resume_fiber(fiber_record& rec, scheduler_stack& sched) {
#if defined(GPMX_TSAN)
  if (!sched.tsan_fiber) sched.tsan_fiber = __tsan_get_current_fiber();
#endif
  before_switch(&sched.asan_fake_stack, rec.stack_bottom, rec.stack_size, rec.tsan_fiber);
  rec.self = std::move(rec.self).resume();
  after_switch(sched.asan_fake_stack, nullptr, nullptr);
  if (!rec.self) rec.done = true;
}

// Fiber: gives control back to the scheduler until resumed.
inline void suspend_fiber(fiber_record& rec, scheduler_stack& sched) {
  before_switch(&rec.asan_fake_stack, sched.bottom, sched.size, sched.tsan_fiber);
  rec.back = std::move(rec.back).resume();
  after_switch(rec.asan_fake_stack, &sched.bottom, &sched.size);
}


}  // namespace gpmx::cpu::detail
