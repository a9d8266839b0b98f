#pragma once
// What every worker of one launch shares: the kernel, the block counter,
// the first error, and the progress clock that spin-wait timeouts read.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "gpmx/exec/agent.hpp"

#include "gpmx/exec/cpu/executor.hpp"

namespace gpmx::cpu::detail {

struct launch_state {
  const launch_config* cfg = nullptr;
  const executor_options* options = nullptr;
  thread_loop_fn loop = nullptr;
  void* closure = nullptr;
  std::uint64_t nblocks = 0;
  std::uint64_t seed = 0;  // deterministic schedule only
  observer* obs = nullptr;               // the executor's observer, or null
  std::uint8_t observed_spaces = 0;      // what obs asked for, read once per launch
  std::uint8_t reported_load_spaces = 0;  // loads obs hears of (the timed schedule times all, reports these)
  std::uint8_t scheduling_spaces = 0;    // deterministic schedule only
  std::vector<agent*> agents;            // attached to the executor; stepped beside the launch
  group_commit* durability = nullptr;    // the executor's, in the parallel schedule with group commit on

  std::atomic<std::uint64_t> next_block{0};
  std::atomic<bool> abort{false};
  // The spin-wait timeout's clock: workers advance it only while some
  // worker is stalled, so the common case touches no shared cache line.
  std::atomic<std::uint64_t> progress{0};
  std::atomic<unsigned> stalled_workers{0};

  std::mutex error_mutex;
  std::exception_ptr error;

  // Claims up to `want` consecutive blocks [first, first + count).
  bool take_blocks(std::uint64_t want, std::uint64_t& first, std::uint64_t& count) {
    if (abort.load(std::memory_order_relaxed)) return false;
    first = next_block.fetch_add(want, std::memory_order_relaxed);
    if (first >= nblocks) return false;
    count = std::min(want, nblocks - first);
    return true;
  }
  bool blocks_left() const { return next_block.load(std::memory_order_relaxed) < nblocks; }

  // Keeps the first error and stops every worker.
  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::move(e);
    }
    abort.store(true, std::memory_order_relaxed);
  }
};

}  // namespace gpmx::cpu::detail
