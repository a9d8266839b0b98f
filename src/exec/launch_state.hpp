#pragma once
// What every worker of one launch shares: the kernel, the block counter,
// the first error, and the progress clock that spin-wait timeouts read.
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>

#include "gpmx/exec/cpu/executor.hpp"

namespace gpmx::cpu::detail {

struct launch_state {
  const launch_config* cfg = nullptr;
  const executor_options* options = nullptr;
  thread_loop_fn loop = nullptr;
  void* closure = nullptr;
  std::uint64_t nblocks = 0;
  std::uint64_t seed = 0;  // deterministic schedule only

  std::atomic<std::uint64_t> next_block{0};
  std::atomic<bool> abort{false};
  std::atomic<std::uint64_t> progress{0};

  std::mutex error_mutex;
  std::exception_ptr error;

  bool take_block(std::uint64_t& linear) {
    if (abort.load(std::memory_order_relaxed)) return false;
    linear = next_block.fetch_add(1, std::memory_order_relaxed);
    return linear < nblocks;
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
