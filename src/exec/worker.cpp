#include "worker.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <fmt/format.h>
#include <thread>

#include "agent_runner.hpp"
#include "backoff.hpp"
#include "group_commit.hpp"
#include "gpmx/exec/errors.hpp"

namespace gpmx::cpu::detail {

block_scheduler* worker::acquire() {
  if (!spare_.empty()) {
    block_scheduler* s = spare_.back();
    spare_.pop_back();
    return s;
  }
  all_.push_back(std::make_unique<block_scheduler>(carriers_, sched_));
  return all_.back().get();
}

void worker::release(block_scheduler* s) { spare_.push_back(s); }

namespace {
// Fiber stacks one worker may hold at once. Each stack may be two mappings
// (guard page and stack, on kernels without guard regions: stack_pool.hpp)
// and a process may have vm.max_map_count of them;
// every worker's stacks together get a quarter of that (the rest is the
// process's own: pools, libraries, heap). Without a bound, threads parked
// for durability or a slow device in many resident blocks ran the process
// out of mappings (mmap failed, then malloc).
std::size_t stack_budget(unsigned workers) {
  static const std::size_t maps = [] {
    std::size_t n = 65530;  // Linux's default
    if (std::ifstream f("/proc/sys/vm/max_map_count"); f) f >> n;
    return n;
  }();
  return std::max<std::size_t>(maps / 4 / std::max(1u, workers), 1024);
}
}  // namespace

void worker::throw_spin_deadlock(const launch_state& L, const char* why) const {
  std::string waits;
  for (const block_scheduler* s : resident_) {
    const dim3 b = delinearize(s->block_linear(), L.cfg->grid);
    waits += fmt::format("\n block ({},{},{}):{}", b.x, b.y, b.z, s->describe_waits());
  }
  throw deadlock_error(fmt::format("kernel '{}': {} ({} resident blocks, at most {}; {} blocks not started):{}",
                                   L.cfg->name, why, resident_.size(),
                                   L.options->max_resident_blocks,
                                   L.nblocks - std::min(L.nblocks, L.next_block.load()), waits));
}

namespace {
// Tells the launch's group commit whether this worker may still hand over
// lines (group_commit::set_worker_busy), on changes only; quiet at the end.
class busy_signal {
 public:
  explicit busy_signal(group_commit* g) : g_(g) { set(true); }
  ~busy_signal() { set(false); }
  busy_signal(const busy_signal&) = delete;
  busy_signal& operator=(const busy_signal&) = delete;
  void set(bool busy) {
    if (g_ && busy != busy_) g_->set_worker_busy(busy);
    busy_ = busy;
  }

 private:
  group_commit* g_;
  bool busy_ = false;
};
}  // namespace

vtime worker::virtual_time() const { return timed_ ? timed_->clock() : 0; }

void worker::run(launch_state& L) {
  const executor_options& opt = *L.options;
  if (opt.policy == schedule::timed) {
    if (!timed_) timed_ = std::make_unique<timed_engine>(carriers_, sched_);
    return timed_->run(L);
  }
  const bool det = is_deterministic(opt.policy);
  seeded_choices choices(L.seed);
  bool all_stalled = false;
  bool durable_wait = false;  // some resident thread waits for a durable flush
  bool device_wait = false;   // some resident thread waits for an emulated device
  // While threads wait for durability, more blocks may be resident so that
  // more threads share each flush (group commit) or overlap a slow device.
  const auto resident_cap = [&] {
    return durable_wait || device_wait ? opt.max_resident_blocks_persisting : opt.max_resident_blocks;
  };
  // A block may need a stack per thread (each of its threads may wait).
  const std::size_t stacks = stack_budget(opt.workers), block_threads = L.cfg->block.count();
  const auto room_for_a_block = [&] {
    return resident_.empty() || carriers_.busy_stacks() + block_threads <= stacks;
  };
  bool counted_stalled = false;  // this worker is in L.stalled_workers
  backoff waiting;
  // Blocks claimed from the launch but not yet admitted: claiming a few at a
  // time keeps the workers off the shared counter's cache line.
  std::uint64_t claimed_next = 0, claimed_end = 0;
  const std::uint64_t chunk =
      det ? 1
          : std::clamp<std::uint64_t>(L.nblocks / (std::uint64_t(opt.workers) * 16), 1,
                                      std::max(1u, opt.max_resident_blocks / 4));
  block_scheduler::block_source next_block = [&](std::uint64_t& linear) {
    if (claimed_next == claimed_end) {
      std::uint64_t first = 0, count = 0;
      if (!L.take_blocks(chunk, first, count)) return false;
      claimed_next = first;
      claimed_end = first + count;
    }
    linear = claimed_next++;
    return true;
  };
  std::uint64_t seen_progress = L.progress.load(std::memory_order_relaxed);
  auto stalled_since = std::chrono::steady_clock::now();
  busy_signal busy(L.durability);
  try {
    for (;;) {
      if (L.abort.load(std::memory_order_relaxed)) break;
      // Admit a block when idle, when every resident block only spins (its
      // producer may not have started), or always in the deterministic
      // schedule so that blocks interleave.
      const bool admit =
          resident_.size() < resident_cap() && (resident_.empty() || det || all_stalled) && room_for_a_block();
      std::uint64_t linear = 0;
      if (admit && next_block(linear)) {
        block_scheduler* s = acquire();
        s->start(L, linear, det ? &choices : nullptr, false, &batch_);
        s->set_block_source(det ? nullptr : &next_block);
        resident_.push_back(s);
      }
      if (resident_.empty()) break;

      if (det) choices.shuffle(resident_.begin(), resident_.end());
      bool progress = false;
      bool passed = false;  // some spinning thread's condition held (its thread went on to its next wait)
      const std::uint64_t flushes_seen = L.durability ? L.durability->completed() : 0;
      durable_wait = false;
      device_wait = false;
      for (std::size_t i = 0; i < resident_.size() && !L.abort.load(std::memory_order_relaxed);) {
        const auto o = resident_[i]->run();
        if (o == block_scheduler::outcome::finished) {
          release(resident_[i]);
          resident_.erase(resident_.begin() + std::ptrdiff_t(i));
          progress = true;
          continue;
        }
        progress |= o == block_scheduler::outcome::progressed;
        passed |= o == block_scheduler::outcome::passed;
        durable_wait |= resident_[i]->waits_on_durability();
        device_wait |= resident_[i]->waits_on_device();
        ++i;
      }
      // What this round's threads handed over goes to the flusher now, before
      // this worker may go quiet (one lock per round).
      if (L.durability) L.durability->hand_over(batch_);
      // The deterministic schedule's agents take one step per round.
      bool agents_busy = false;
      if (det) {
        const agent_round a = step_agents(L, choices);
        progress |= a.progressed;
        agents_busy = a.busy;
      }
      // Passed spins alone do not admit blocks: as when only spinners ran.
      all_stalled = !progress;
      const bool went_on = progress || passed;  // not a stall: no backoff, no deadlock timeout
      if (went_on) {
        if (counted_stalled) {
          L.stalled_workers.fetch_sub(1, std::memory_order_relaxed);
          counted_stalled = false;
        }
        if (L.stalled_workers.load(std::memory_order_relaxed) != 0)
          L.progress.fetch_add(1, std::memory_order_relaxed);
        waiting.reset();
      }
      if (progress || (passed && !durable_wait)) {
        busy.set(true);
        // Threads that only went from one wait to the next wait on someone
        // else (an agent's thread, another worker): offer the core, which
        // on a machine with fewer cores than busy threads is what lets the
        // agent serve them (one yield: no sleep while conditions keep passing).
        if (!progress && !det) std::this_thread::yield();
        continue;
      }
      // Here only spins passed while threads wait for a flush, or nothing
      // ran: the worker is quiet for the flusher and waits for the flush.
      if (resident_.size() < resident_cap() && room_for_a_block() && (claimed_next < claimed_end || L.blocks_left()))
        continue;
      busy.set(false);  // it will wait: nothing it runs can hand over lines now
      if (durable_wait) {  // not a stall: the flusher will complete what they wait for
        L.durability->wait_past(flushes_seen, std::chrono::milliseconds(1));
        stalled_since = std::chrono::steady_clock::now();
        continue;
      }
      if (device_wait) {  // not a stall: the device's time passes by itself
        std::this_thread::yield();
        stalled_since = std::chrono::steady_clock::now();
        continue;
      }
      if (det && agents_busy) {  // an agent's work in flight may end the spin
        std::this_thread::yield();
        continue;
      }
      if (det) throw_spin_deadlock(L, "deadlock: every resident thread spins, no other block can start "
                                      "and no agent has work");
      // Parallel: another worker may still write what these threads wait for.
      if (!counted_stalled) {
        L.stalled_workers.fetch_add(1, std::memory_order_relaxed);
        counted_stalled = true;
        seen_progress = L.progress.load(std::memory_order_relaxed);
        stalled_since = std::chrono::steady_clock::now();
      }
      const auto now = std::chrono::steady_clock::now();
      const std::uint64_t p = L.progress.load(std::memory_order_relaxed);
      if (p != seen_progress) {
        seen_progress = p;
        stalled_since = now;
      } else if (now - stalled_since > opt.spin_timeout) {
        throw_spin_deadlock(L, fmt::format("no thread made progress for {} ms (GPMX_SPIN_TIMEOUT_MS)",
                                           opt.spin_timeout.count()).c_str());
      }
      // Threads in a long wait wait for an agent's thread (an I/O's
      // completion): a sleep here would hold each completion back by up to
      // the sleep, so offer the core and look again (a stall all the same:
      // the deadlock timeout above still runs).
      // (Asked here, on the stall path only, not in every round.)
      const bool long_wait =
          std::any_of(resident_.begin(), resident_.end(), [](const block_scheduler* b) { return b->waits_long(); });
      if (long_wait) std::this_thread::yield();
      else waiting.pause();
    }
  } catch (...) {
    L.fail(std::current_exception());
  }
  if (counted_stalled) L.stalled_workers.fetch_sub(1, std::memory_order_relaxed);
  // Lines of threads about to be cancelled still reach the flusher: the
  // launch drains it before it returns, as for threads that waited directly.
  if (L.durability) L.durability->hand_over(batch_);
  for (block_scheduler* s : resident_) {
    s->cancel();
    release(s);
  }
  resident_.clear();
}

}  // namespace gpmx::cpu::detail
