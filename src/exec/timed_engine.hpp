#pragma once
// The timed schedule: runs a launch on a simulated GPU in virtual time.
// Blocks are placed on SMs as occupancy allows; each SM's warp schedulers
// issue one warp instruction at a time, the lanes stopped at the same
// operation together; the timing model says when the warp and the
// scheduler may issue again. Functional execution happens at issue, in
// virtual-time order, so spin loops and data-dependent control see what
// they would see on the simulated machine (docs/sim.md); plain loads alone
// may be performed before (run-ahead: timed_machine::run_ahead).
#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "block_scheduler.hpp"
#include "launch_state.hpp"

namespace gpmx::cpu::detail {

class timed_engine final : private timed_waker {
 public:
  timed_engine(carrier_pool& carriers, scheduler_stack& sched) : carriers_(carriers), sched_(sched) {}
  // Runs every block of L; errors go to L. Virtual time carries over
  // from one launch to the next.
  void run(launch_state& L);
  vtime now() const { return now_; }
  // The time of the instruction issuing now (between launches: the last
  // launch's end): what agents stepped beside the launch see as "now".
  vtime clock() const { return clock_; }

 private:
  struct block_rec;
  struct warp_rec {
    block_rec* block = nullptr;
    std::uint32_t warp = 0;
    std::uint32_t unit = 0;  // global index of the warp scheduler that issues it
    vtime ready = 0;
    std::uint64_t age = 0;   // admission order: GTO's "oldest"
    stall_reason why = stall_reason::none;
    bool waiting = false;    // no lane parked: all wait on the barrier or a collective
    bool held = false;       // the model holds its issued instruction (performed at wake)
    timed_kind held_kind = timed_kind::load;
    std::uint32_t held_group = 0;
    bool done = false;
    std::uint64_t spin_epoch = ~0ull;  // epoch of its failed spin retries below
    std::uint32_t spin_failed = 0;     // lanes whose spin retry failed in that epoch
    bool spinning = false;             // counted in spinners_: every parked lane failed in spin_epoch
  };
  struct block_rec {
    block_scheduler* sched = nullptr;
    std::uint64_t linear = 0;
    std::uint32_t sm = 0;
    std::vector<warp_rec> warps;
    std::uint32_t warps_left = 0;
  };
  struct unit_rec {
    std::vector<warp_rec*> warps;
    vtime free_at = 0;
    warp_rec* last = nullptr;  // the warp it issued last (GTO greedy, LRR position)
    vtime queued = vtime_never;  // its live entry in the heap, if any
  };
  struct sm_rec {
    std::uint32_t threads = 0, blocks = 0, registers = 0;
    std::uint64_t shared = 0;
  };
  using heap_entry = std::pair<vtime, std::uint32_t>;  // (time, unit)

  void begin(launch_state& L);
  void admit_blocks(launch_state& L, vtime at);
  bool fits(const sm_rec& sm) const;
  void start_block(launch_state& L, std::uint64_t linear, std::uint32_t sm, vtime at);
  void finish_block(block_rec* b, vtime at);
  vtime unit_next(const unit_rec& u) const;
  warp_rec* select(unit_rec& u, vtime at);
  void issue(launch_state& L, warp_rec& w, std::uint32_t unit, vtime at);
  // The lanes of `group` perform their instruction at `at` and run to their
  // next operation; the warp may issue again from `ready`.
  void perform(launch_state& L, warp_rec& w, std::uint32_t group, timed_kind kind, vtime at, vtime ready);
  void wake(std::uint64_t block, std::uint32_t warp, vtime at) override;
  void push(std::uint32_t unit);
  [[noreturn]] void throw_deadlock(launch_state& L, const char* why) const;
  block_scheduler* acquire();

  carrier_pool& carriers_;
  scheduler_stack& sched_;
  timing_model* model_ = nullptr;
  launch_state* launch_ = nullptr;  // the launch running (for wake)
  timed_machine m_;
  vtime now_ = 0;    // end of the previous launch
  vtime end_ = 0;    // latest completion seen in this launch
  vtime clock_ = 0;  // see clock()
  std::uint64_t next_block_ = 0, nblocks_ = 0;
  std::uint32_t rr_sm_ = 0;  // where block placement resumes
  std::uint64_t ages_ = 0;
  std::uint32_t threads_per_block_ = 0, registers_per_block_ = 0;
  std::uint64_t shared_per_block_ = 0;
  std::vector<sm_rec> sms_;
  std::vector<unit_rec> units_;
  std::vector<sm_activity> activity_;
  std::vector<vtime> agent_ready_;  // per agent: when its last step's persists complete
  std::vector<std::size_t> agent_order_;  // step_agents_at's scratch
  std::vector<std::unique_ptr<block_rec>> resident_;
  std::vector<std::unique_ptr<block_scheduler>> schedulers_;
  std::vector<block_scheduler*> spare_;
  std::priority_queue<heap_entry, std::vector<heap_entry>, std::greater<>> heap_;
  // Spin deadlock: the epoch advances on every issue that is not a failed
  // spin retry; when every live, non-waiting warp failed a retry in the
  // current epoch, nothing can change what they read.
  std::uint64_t epoch_ = 0;
  std::uint32_t spinners_ = 0;  // warps with spinning set and spin_epoch == epoch_
  std::uint32_t live_warps_ = 0, waiting_warps_ = 0, held_warps_ = 0;
};

}  // namespace gpmx::cpu::detail
