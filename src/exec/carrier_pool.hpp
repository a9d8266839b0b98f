#pragma once
// A worker's carrier fibers. A carrier whose block has no unstarted thread
// left parks here instead of ending, and the next block that needs a carrier
// takes it: creating and destroying a fiber per block would cost more than a
// small block's threads.
#include <memory>
#include <vector>

#include "fiber.hpp"

namespace gpmx::cpu::detail {

class carrier_pool {
 public:
  carrier_pool(std::size_t stack_bytes, scheduler_stack& sched) : stacks_(stack_bytes), sched_(sched) {}
  ~carrier_pool();
  carrier_pool(const carrier_pool&) = delete;
  carrier_pool& operator=(const carrier_pool&) = delete;

  // A carrier that will run `owner`'s threads when resumed.
  fiber_record* acquire(block_scheduler* owner);
  // The carrier's block had nothing more for it: keep it for the next block.
  void park(fiber_record* rec);
  // The carrier's fiber ended (it was cancelled): recycle its record.
  void release(fiber_record* rec);
  // Stacks held by fibers that are not parked here (running or waiting).
  std::size_t busy_stacks() const { return stacks_.in_use() - idle_.size(); }

 private:
  stack_pool stacks_;
  scheduler_stack& sched_;
  std::vector<std::unique_ptr<fiber_record>> records_;
  std::vector<fiber_record*> idle_;  // parked fibers, ready for another block
  std::vector<fiber_record*> free_;  // records without a fiber
};

}  // namespace gpmx::cpu::detail
