#pragma once
// The cpu executor: runs a kernel's blocks over worker OS threads, each GPU
// thread as a lazily created fiber (see docs/programming-model.md).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "gpmx/exec/agent.hpp"
#include "gpmx/exec/concepts.hpp"
#include "gpmx/exec/cpu/thread_ctx.hpp"
#include "gpmx/exec/launch_config.hpp"
#include "gpmx/exec/timing.hpp"

namespace gpmx::cpu {

// How blocks and threads are scheduled. Execution modes are observers over
// a schedule: the trace mode is the deterministic schedule observed by a
// trace::recorder (see docs/design.md).
enum class schedule : std::uint8_t {
  parallel,       // all workers, threads switch only when they must wait
  deterministic,  // one worker, every choice drawn from a seeded generator
  timed,          // one worker, warps issue in virtual time as a timing model says
};

// Whether a policy runs on one worker with seeded choices.
constexpr bool is_deterministic(schedule s) { return s != schedule::parallel; }

struct executor_options {
  unsigned workers = 0;  // 0: GPMX_WORKERS, else every core
  schedule policy = schedule::parallel;
  std::uint64_t seed = 0;                   // deterministic schedule only
  // The timed schedule's model of the GPU (not owned; required by it). It
  // is also the launch's observer.
  gpmx::timing_model* timing = nullptr;
  // Sees every launch's events (not owned). In the deterministic schedule
  // the events it asks for are scheduling points; the parallel schedule
  // takes only an observer that is thread_safe(). Installed as the host
  // observer while the executor lives, if none is.
  gpmx::observer* observer = nullptr;
  std::size_t fiber_stack_bytes = 0;        // 0: GPMX_FIBER_STACK, else 64 KiB
  unsigned max_resident_blocks = 0;         // per worker; 0: 16 (parallel), 4 (deterministic)
  // Group commit (parallel schedule): threads waiting for durability share
  // one flush of a slow domain (see docs/persistency-models.md section 4).
  // 0: GPMX_GROUP_COMMIT (0 turns it off), else on; 1 on; 2 off.
  unsigned group_commit = 0;
  // Resident blocks a worker may hold while its threads wait for durability,
  // so that more threads share each flush; 0: GPMX_PERSIST_RESIDENT_BLOCKS,
  // else 4 x max_resident_blocks.
  unsigned max_resident_blocks_persisting = 0;
  std::chrono::milliseconds spin_timeout{0};  // 0: GPMX_SPIN_TIMEOUT_MS, else 30 s
  device_limits limits{};
};

// How kernel threads shared durable flushes under group commit, since the
// executor was made.
struct durability_stats {
  std::uint64_t waits = 0;    // a thread waiting for its lines to be durable
  std::uint64_t lines = 0;    // 64-byte lines those waits handed over
  std::uint64_t flushes = 0;  // batches the flusher made durable (a group each)
  std::uint64_t calls = 0;    // persist calls the batches needed (persist_domain::persist_group)
  std::uint64_t flush_ns = 0;  // time the flusher spent making batches durable
};

// Options with every 0 replaced by its environment variable or default.
executor_options resolve(executor_options o);

namespace detail {
using thread_loop_fn = void (*)(void* closure, block_state& block, fiber_record& fiber);

// Remembers which thread threw, for the error the launch reports.
void note_failing_thread(fiber_record& fiber, dim3 thread);

// Runs threads of one block on the current fiber until none is left
// unstarted; a thread that must wait suspends this fiber with it. The
// context is local so that, in kernels that never wait, the compiler keeps
// it in registers and the loop costs little more than a plain loop.
// Ctx is thread_ctx for observed launches, unobserved_thread_ctx otherwise.
template <class Closure, class Ctx>
void thread_loop(void* closure, block_state& block, fiber_record& fiber) {
  // A private copy of the kernel and its arguments: being local, they stay
  // in registers instead of being reloaded after every store the kernel makes.
  Closure run = *static_cast<const Closure*>(closure);
  pm_line_list pm_lines;
  Ctx t(block, fiber, &pm_lines);
  try {
    // A thread's unpersisted PM stores are made durable from its end on (by
    // the thread itself, or handed to the group commit), and are durable
    // when the launch returns: the kernel boundary the models require.
    if (t.seeded_order()) {
      while (t.claim())
        while (t.has_claimed()) {
          t.template start_next<true>(), run(t);
          if (t.pm_dirty()) t.persist_pm_writes(true);
          if constexpr (!std::is_same_v<Ctx, unobserved_thread_ctx>) t.thread_ended();
        }
    } else {
      while (t.claim())
        while (t.has_claimed()) {
          t.template start_next<false>(), run(t);
          if (t.pm_dirty()) t.persist_pm_writes(true);
          if constexpr (!std::is_same_v<Ctx, unobserved_thread_ctx>) t.thread_ended();
        }
    }
  } catch (...) {
    note_failing_thread(fiber, t.thread_idx());
    throw;
  }
}
}  // namespace detail

class executor;

// An agent attached to an executor; detaches it when destroyed.
class [[nodiscard]] agent_attachment {
 public:
  agent_attachment(executor& ex, agent& a) : ex_(&ex), a_(&a) {}
  agent_attachment(agent_attachment&& o) noexcept : ex_(o.ex_), a_(o.a_) { o.ex_ = nullptr; }
  agent_attachment& operator=(agent_attachment&&) = delete;
  ~agent_attachment();

 private:
  executor* ex_;
  agent* a_;
};

class executor {
 public:
  explicit executor(executor_options options = {});
  ~executor();
  executor(const executor&) = delete;
  executor& operator=(const executor&) = delete;

  // Runs kernel(t, args...) for every thread of the grid and returns when all
  // have finished. Arguments are copied once and passed to every thread as
  // const lvalues, as CUDA copies kernel parameters.
  template <class Kernel, class... Args>
  void launch(const launch_config& cfg, Kernel&& kernel, Args&&... args) {
    auto closure = [k = std::forward<Kernel>(kernel),
                    a = std::make_tuple(std::forward<Args>(args)...)](auto& t) {
      std::apply([&](const auto&... v) { k(t, v...); }, a);
    };
    using closure_t = decltype(closure);
    run(cfg,
        observed() ? &detail::thread_loop<closure_t, thread_ctx>
                   : &detail::thread_loop<closure_t, unobserved_thread_ctx>,
        &closure);
  }

  // Runs `a` beside every launch until the attachment is destroyed (see
  // gpmx/exec/agent.hpp). Not during a launch of this executor.
  agent_attachment attach(agent& a);
  void detach(agent& a);
  // The agents attached now (a GPU launch through a launch_target runs them
  // beside its kernel on host threads, host_agents.hpp).
  std::vector<agent*> attached_agents() const;

  const executor_options& options() const;
  // Whether launches run under an observer (and so with the observed context).
  bool observed() const { return options().observer != nullptr; }
  unsigned workers() const { return options().workers; }
  // The timed schedule's virtual time: the issue time of the instruction
  // issuing now (agents stepped beside a launch read it), else the last
  // launch's end; 0 in the other schedules.
  vtime virtual_time() const;
  // Group commit's counts (all zero when it is off or nothing waited).
  durability_stats durability() const;

 private:
  void run(const launch_config& cfg, detail::thread_loop_fn loop, void* closure);
  struct impl;
  std::unique_ptr<impl> impl_;
};

static_assert(thread_context<thread_ctx>, "the cpu thread context must satisfy gpmx::thread_context");
static_assert(thread_context<unobserved_thread_ctx>,
              "the cpu executor's unobserved context must satisfy gpmx::thread_context");
static_assert(launcher<executor>, "the cpu executor must satisfy gpmx::launcher");

// The process-wide executor used by gpmx::cpu::launch, built from the
// environment on first use.
executor& default_executor();

template <class Kernel, class... Args>
void launch(const launch_config& cfg, Kernel&& kernel, Args&&... args) {
  default_executor().launch(cfg, std::forward<Kernel>(kernel), std::forward<Args>(args)...);
}

}  // namespace gpmx::cpu
