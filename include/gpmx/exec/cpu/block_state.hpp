#pragma once
// The part of a running block that kernel threads touch on their fast path
// (starting and ending threads, shared memory). Everything that suspends a
// thread lives in src/exec and is reached through the out-of-line members.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpmx/exec/dim3.hpp"
#include "gpmx/exec/observer.hpp"

namespace gpmx {
struct timed_op;
}
namespace gpmx::cpu {
class thread_ctx;
}

namespace gpmx::cpu::detail {

struct fiber_record;
class block_scheduler;
class group_commit;
struct durability_batch;

// What a suspended thread waits for; also what a deadlock report prints.
enum class wait_kind : std::uint8_t {
  none, barrier, warp_collective, activemask, spin, yield, durability,
  device,  // an emulated device finishing its persist (device_wait.hpp)
  timed,  // stopped at an operation its warp has not issued yet (timed schedule)
};

using gpmx::warp_op;

// What a completed block barrier tells each participant.
struct barrier_result {
  std::uint32_t count;         // participants whose predicate was non-zero
  std::uint32_t participants;  // threads that had not exited
};

struct static_shared_slot {
  std::size_t offset, bytes;
};

class block_state {
 public:
  // --- fast path: read and written only by this block's worker ---
  dim3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  std::uint64_t block_linear = 0;
  std::uint32_t nthreads = 0;
  std::uint32_t next_unstarted = 0;
  const std::uint32_t* start_order = nullptr;  // seeded order, deterministic mode
  std::uint32_t live = 0;           // threads not exited (unstarted count as live)
  std::uint32_t suspended = 0;      // threads waiting at a barrier or warp op
  std::vector<std::uint32_t> warp_live;  // per warp: lanes not exited
  std::byte* dynamic_shared = nullptr;
  std::byte* static_shared = nullptr;  // the arena: static arrays, then the dynamic part
  std::size_t static_shared_capacity = 0;
  std::size_t shared_bytes = 0;         // the arena's static and dynamic bytes
  std::size_t static_shared_used = 0;
  std::vector<static_shared_slot> static_slots;
  bool deterministic = false;
  bool timed = false;                   // the timed schedule (deterministic too)
  std::uint32_t run_ahead = 0;          // timed: plain loads a lane records before it stops
  bool run_ahead_stores = false;        // timed: and plain stores
  // timed, with run_ahead: the block scheduler's records, which a lane's
  // plain load or store fills inline (thread_ctx::record_ahead): op k of lane l of
  // warp w at ahead_rows[w][k * 32 + l], and how many lane (w, l) has
  // recorded at ahead_count[w * 32 + l]. A warp's rows are lent to it from
  // the first record of a run on (thread_ctx::begin_ahead_records), so
  // ahead_rows[w] may be null before then.
  timed_op* const* ahead_rows = nullptr;
  std::uint16_t* ahead_count = nullptr;
  gpmx::observer* observer = nullptr;   // the launch's, or null
  std::uint8_t observed_spaces = 0;     // observer->observed_spaces(), or 0
  std::uint8_t reported_load_spaces = 0;  // loads the observer hears of: its observed_spaces()
  std::uint8_t scheduling_spaces = 0;   // observer->scheduling_spaces() (deterministic only), or 0
  block_scheduler* scheduler = nullptr;
  group_commit* durability = nullptr;   // parallel schedule with group commit on, else null
  durability_batch* batch = nullptr;    // with durability: the running worker's hand-overs of this round

  bool in_shared(const void* p) const {
    const auto* b = static_cast<const std::byte*>(p);
    return b >= static_shared && b < static_shared + shared_bytes;
  }
  // The timed schedule's space of an access: an address in this block's
  // shared memory is served in the SM, whatever view or raw pointer made it.
  mem_space timed_space(const void* p, mem_space s) const { return p && in_shared(p) ? mem_space::shared : s; }
  // The k-th static shared allocation of this block (made on first request).
  std::byte* static_shared_at(std::size_t k, std::size_t bytes, std::size_t align);

  // Threads at start-order indices [from, to) have finished: updates the
  // live counts and wakes waiters their exit completes. `reporter` is the
  // thread whose carrier reports them (named if an exit breaks a warp
  // operation). Takes no thread_ctx so the context never escapes the
  // thread loop of a kernel that does not wait.
  void publish_exits(std::uint32_t from, std::uint32_t to, dim3 reporter);
};

}  // namespace gpmx::cpu::detail
