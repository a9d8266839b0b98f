#include "fiber.hpp"

#include <utility>

#if defined(GPMX_SANITIZER_address)
#include <sanitizer/asan_interface.h>
#define GPMX_ASAN 1
#endif
#if defined(GPMX_SANITIZER_thread)
#include <sanitizer/tsan_interface.h>
#define GPMX_TSAN 1
#endif

namespace gpmx::cpu::detail {
namespace bctx = boost::context;

namespace {

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

}  // namespace

void create_fiber(fiber_record& rec, stack_pool& pool, scheduler_stack& sched,
                  std::function<void(fiber_record&)> body) {
  rec.done = false;
  rec.thread = nullptr;
  rec.wait = wait_kind::none;
  rec.stack_size = pool.stack_bytes();
#if defined(GPMX_TSAN)
  rec.tsan_fiber = __tsan_create_fiber(0);
#endif
  fiber_record* r = &rec;
  scheduler_stack* s = &sched;
  rec.self = bctx::fiber(std::allocator_arg, pooled_stack_allocator{&pool},
                         [r, s, body = std::move(body)](bctx::fiber&& back) {
                           after_switch(nullptr, &s->bottom, &s->size);
                           r->back = std::move(back);
                           try {
                             body(*r);
                           } catch (const fiber_cancelled&) {
                           }
                           r->done = true;
                           before_switch(nullptr, s->bottom, s->size, s->tsan_fiber);
                           return std::move(r->back);
                         });
  const auto& sc = pool.last_taken();
  rec.stack_bottom = static_cast<char*>(sc.sp) - sc.size;
}

void resume_fiber(fiber_record& rec, scheduler_stack& sched) {
#if defined(GPMX_TSAN)
  if (!sched.tsan_fiber) sched.tsan_fiber = __tsan_get_current_fiber();
#endif
  before_switch(&sched.asan_fake_stack, rec.stack_bottom, rec.stack_size, rec.tsan_fiber);
  rec.self = std::move(rec.self).resume();
  after_switch(sched.asan_fake_stack, nullptr, nullptr);
  if (!rec.self) rec.done = true;
}

void cancel_fiber(fiber_record& rec, scheduler_stack& sched) {
#if defined(GPMX_TSAN)
  if (!sched.tsan_fiber) sched.tsan_fiber = __tsan_get_current_fiber();
#endif
  fiber_record* r = &rec;
  scheduler_stack* s = &sched;
  before_switch(&sched.asan_fake_stack, rec.stack_bottom, rec.stack_size, rec.tsan_fiber);
  rec.self = std::move(rec.self).resume_with([r, s](bctx::fiber&& back) -> bctx::fiber {
    after_switch(r->asan_fake_stack, &s->bottom, &s->size);
    r->back = std::move(back);
    throw fiber_cancelled{};
  });
  after_switch(sched.asan_fake_stack, nullptr, nullptr);
  if (!rec.self) rec.done = true;
}

void suspend_fiber(fiber_record& rec, scheduler_stack& sched) {
  before_switch(&rec.asan_fake_stack, sched.bottom, sched.size, sched.tsan_fiber);
  rec.back = std::move(rec.back).resume();
  after_switch(rec.asan_fake_stack, &sched.bottom, &sched.size);
}

void retire_fiber([[maybe_unused]] fiber_record& rec) {
#if defined(GPMX_TSAN)
  if (rec.tsan_fiber) __tsan_destroy_fiber(rec.tsan_fiber);
  rec.tsan_fiber = nullptr;
#endif
}

}  // namespace gpmx::cpu::detail
