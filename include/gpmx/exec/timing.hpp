#pragma once
// What the timed schedule (schedule::timed) asks of a timing model. The
// executor runs kernels for real and decides which warp issues next in
// virtual time; the model (gpmx_sim's GPU memory system) says how long each
// warp instruction takes. Function and timing stay apart: the executor
// hands the model instructions as values and the model answers with times.
#include <cstdint>
#include <string_view>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/memory_scope.hpp"
#include "gpmx/exec/observer.hpp"
#include "gpmx/exec/source_loc.hpp"

namespace gpmx {

// Virtual time in picoseconds: fine enough that a 32-byte transfer at
// hundreds of GB/s costs a whole number of units.
using vtime = std::uint64_t;
inline constexpr vtime vtime_never = ~vtime(0);

// What a thread stopped at, in the timed schedule. Each lane runs until its
// next such operation; the warp then issues the lanes stopped at the same
// operation together, as one instruction.
enum class timed_kind : std::uint8_t {
  load,             // a load from a view (space says which)
  store,            // a store through a view (already made: stores are reported after)
  atomic,           // an atomic read-modify-write, load or store (sub: atomic_op)
  ordering,         // gpm_persist, ofence or dfence (sub: ordering_op)
  fence,            // a memory fence of scope `sc`
  flag_release,     // prel: persist release of scope `sc`
  flag_acquire,     // pacq: persist acquire of scope `sc`
  persist_range,    // a range persist of `bytes` at `addr`
  barrier,          // arrival at the block barrier
  warp_collective,  // a shuffle, vote or syncwarp (sub: warp_op)
  spin,             // another try of a spin_wait condition (addr, space: its last read; sub: atomic_op::load
                    // if that was an atomic load or a persist acquire (acquire, sc), atomic_op::none if a
                    // load through a view)
  activemask,       // activemask()
};
inline constexpr unsigned timed_kind_count = 12;
const char* to_string(timed_kind k);

// 32 bytes (with std::source_location, one pointer): lanes record thousands
// of these ahead of their warp's issue, and the simulator's speed follows
// how many cache lines they take.
struct timed_op {
  timed_kind kind = timed_kind::load;
  mem_space space = mem_space::global;
  scope sc = scope::device;
  std::uint8_t sub = 0;        // atomic_op, ordering_op or warp_op, by kind
  std::uint32_t bytes = 0;
  const void* addr = nullptr;
  std::uint32_t work = 0;      // instructions the thread declared with work() since its last operation
  bool acquire = false;        // spin: the condition's read was a persist acquire of scope `sc`
  source_loc loc{};            // where it was written: lanes at different file:line issue apart
};
// Whether two lanes stopped at the same place in the source (file and line,
// as a warp's divergent paths are told apart).
bool same_place(const source_loc& a, const source_loc& b);

// One warp instruction: the lanes in `lanes` stopped at the same operation.
struct warp_instruction {
  std::uint32_t sm = 0;
  std::uint32_t scheduler = 0;  // the SM's warp scheduler that issues it
  std::uint64_t block = 0;      // linear block index
  std::uint32_t warp = 0;       // warp index within the block
  std::uint32_t lanes = 0;
  const timed_op* ops = nullptr;  // 32 entries, indexed by lane; valid for lanes in `lanes`
};

// When the warp may issue again and, if it must wait, why.
enum class stall_reason : std::uint8_t { none, memory, barrier, ordering, compute, idle };
inline constexpr unsigned stall_reason_count = 6;
const char* to_string(stall_reason r);

struct issue_result {
  // The warp's next instruction may issue from here. vtime_never: the warp
  // is held until the model wakes it (timed_waker); the lanes perform the
  // operation then, not now, so what it makes visible (a release's flag)
  // appears at the time the hardware would let it.
  vtime ready = 0;
  vtime slot_free = 0;    // the scheduler may issue another warp's instruction from here
  stall_reason waits_on = stall_reason::none;  // what `ready` waits for
};

enum class warp_scheduling : std::uint8_t { gto, lrr };

// The simulated GPU as the scheduler sees it: SMs, their warp schedulers
// and what limits how many blocks an SM keeps resident.
struct timed_machine {
  std::uint32_t sms = 30;
  std::uint32_t schedulers_per_sm = 4;
  std::uint32_t max_threads_per_sm = 2048;
  std::uint32_t max_blocks_per_sm = 32;
  std::uint64_t shared_bytes_per_sm = 64 * 1024;
  std::uint32_t registers_per_sm = 65536;
  std::uint32_t registers_per_thread = 32;
  warp_scheduling policy = warp_scheduling::gto;
  vtime cycle = 733;  // one core clock cycle
  // Plain loads a lane may perform ahead of its warp's issue, recorded and
  // issued later in order (0: each load waits for its issue). A load's value
  // then comes from memory as it was when the lane reached it, not when its
  // warp issued it, which differs only for a load that races with a store.
  // A model whose observers need loads in virtual-time order keeps 0.
  std::uint32_t run_ahead = 0;
  // Plain stores run ahead too (with run_ahead > 0). A store is made when
  // the lane reaches it in any case; this lets the lane go on past it
  // before its warp issues it. A model that follows each store's bytes
  // from the lane to its issue (crash images) keeps false: with it, a store
  // in a space the observer does not observe (observed_spaces()) is not
  // reported to it, as a load in such a space is not.
  bool run_ahead_stores = false;
};

// Per SM, what the scheduler saw over one launch.
struct sm_activity {
  std::uint64_t instructions = 0;  // warp instructions issued at operations (memory, sync, ordering)
  std::uint64_t compute_instructions = 0;  // warp instructions declared with work()
  std::uint64_t blocks = 0;        // blocks that ran on it
  // Per warp scheduler, summed: time no instruction could issue, by the
  // reason of the warp closest to ready (idle: no warp at all).
  vtime stalled[stall_reason_count] = {};
  vtime busy = 0;                  // time the schedulers spent issuing
};

// How a model releases the warps it holds (issue_result::ready ==
// vtime_never): the warp performs its held instruction at `at` and may
// issue again a cycle later.
class timed_waker {
 public:
  virtual void wake(std::uint64_t block, std::uint32_t warp, vtime at) = 0;

 protected:
  ~timed_waker() = default;
};

class timing_model : public observer {
 public:
  virtual timed_machine machine() const = 0;
  // A launch begins at `now` (virtual time runs on across launches).
  virtual void launch_begin(std::string_view /*name*/, dim3 /*grid*/, dim3 /*block*/, vtime /*now*/) {}
  // The warp issues one instruction at `now`.
  virtual issue_result issue(const warp_instruction& in, vtime now) = 0;
  // The model's own events (a persist buffer draining in the background):
  // the earliest time one is due, vtime_never if none. The schedule calls
  // advance(t) before it issues anything later than t, so the model sees
  // its events and the warps' instructions in one time order.
  virtual vtime next_event() const { return vtime_never; }
  virtual void advance(vtime /*t*/, timed_waker& /*w*/) {}
  virtual void block_started(std::uint64_t /*block*/, std::uint32_t /*sm*/, vtime /*now*/) {}
  virtual void block_finished(std::uint64_t /*block*/, std::uint32_t /*sm*/, vtime /*now*/) {}
  // Every thread has ended at `now`; returns when the launch is over (the
  // memory system drained what the kernel boundary requires). `sms` holds
  // machine().sms entries.
  virtual vtime launch_end(vtime now, const sm_activity* /*sms*/) { return now; }
  // The launch failed; nothing more is issued.
  virtual void launch_failed() {}
  // An agent beside the launch steps at `now` (between the two calls): the
  // model times what it persists meanwhile (the host's writes to PM, each
  // persist waiting for the one before, as a host thread's fence does).
  // agent_step_ends returns when the step's persists are complete (`now`
  // if it made none): the schedule steps that agent again no earlier.
  virtual void agent_step_begins(vtime /*now*/) {}
  virtual vtime agent_step_ends(vtime now) { return now; }
};

}  // namespace gpmx
