#include "carrier_pool.hpp"

#include "block_scheduler.hpp"

namespace gpmx::cpu::detail {

carrier_pool::~carrier_pool() {
  // End every parked fiber: its loop sees `retiring` and returns. This may
  // run on another OS thread than the worker's; the switch annotations
  // re-learn the scheduler's stack from here.
  sched_.tsan_fiber = nullptr;
  for (fiber_record* rec : idle_) {
    rec->retiring = true;
    resume_fiber(*rec, sched_);
    retire_fiber(*rec);
  }
}

fiber_record* carrier_pool::acquire(block_scheduler* owner) {
  if (!idle_.empty()) {
    fiber_record* rec = idle_.back();
    idle_.pop_back();
    rec->owner = owner;
    rec->parked = false;
    return rec;
  }
  fiber_record* rec;
  if (!free_.empty()) {
    rec = free_.back();
    free_.pop_back();
  } else {
    records_.push_back(std::make_unique<fiber_record>());
    rec = records_.back().get();
  }
  rec->owner = owner;
  rec->parked = false;
  rec->retiring = false;
  scheduler_stack* sched = &sched_;
  create_fiber(*rec, stacks_, sched_, [sched](fiber_record& r) {
    while (!r.retiring) {
      r.owner->fiber_body(r);  // the owner block's threads, until none is left
      r.parked = true;
      suspend_fiber(r, *sched);
    }
  });
  return rec;
}

void carrier_pool::park(fiber_record* rec) { idle_.push_back(rec); }

void carrier_pool::release(fiber_record* rec) {
  retire_fiber(*rec);
  free_.push_back(rec);
}

}  // namespace gpmx::cpu::detail
