#include "fiber.hpp"

#include <utility>

namespace gpmx::cpu::detail {
namespace bctx = boost::context;

void create_fiber(fiber_record& rec, stack_pool& pool, scheduler_stack& sched,
                  std::function<void(fiber_record&)> body) {
  rec.done = false;
  rec.thread = nullptr;
  rec.wait = wait_kind::none;
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
  rec.stack_size = sc.size;  // under stack_bytes() by the stack's color
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

void retire_fiber([[maybe_unused]] fiber_record& rec) {
#if defined(GPMX_TSAN)
  if (rec.tsan_fiber) __tsan_destroy_fiber(rec.tsan_fiber);
  rec.tsan_fiber = nullptr;
#endif
}

}  // namespace gpmx::cpu::detail
