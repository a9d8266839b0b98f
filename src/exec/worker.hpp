#pragma once
// One worker OS thread's part of a launch: it admits blocks, keeps up to
// max_resident_blocks of them resident (like an SM), and runs them.
#include <memory>
#include <vector>

#include "block_scheduler.hpp"
#include "group_commit.hpp"
#include "timed_engine.hpp"

namespace gpmx::cpu::detail {

class worker {
 public:
  explicit worker(std::size_t stack_bytes) : carriers_(stack_bytes, sched_) {}
  // Runs blocks of L until none is left or the launch fails; errors go to L.
  void run(launch_state& L);
  // The timed schedule's clock (timed_engine::clock); 0 before its first launch.
  vtime virtual_time() const;

 private:
  block_scheduler* acquire();
  void release(block_scheduler* s);
  [[noreturn]] void throw_spin_deadlock(const launch_state& L, const char* why) const;

  scheduler_stack sched_;
  carrier_pool carriers_;
  std::vector<std::unique_ptr<block_scheduler>> all_;
  std::vector<block_scheduler*> spare_;
  std::vector<block_scheduler*> resident_;
  durability_batch batch_;  // its threads' hand-overs during a round (group commit)
  std::unique_ptr<timed_engine> timed_;  // the timed schedule's, made on its first launch
};

}  // namespace gpmx::cpu::detail
