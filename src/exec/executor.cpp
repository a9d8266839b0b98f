// The cpu executor: a pool of worker threads that each run worker::run over
// the same launch; the launching thread is worker 0.
#include "gpmx/exec/cpu/executor.hpp"

#include <algorithm>
#include <condition_variable>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>

#include "gpmx/exec/errors.hpp"
#include "agent_runner.hpp"
#include "launch_state.hpp"
#include "group_commit.hpp"
#include "worker.hpp"

namespace gpmx::cpu {
namespace {
thread_local bool inside_launch = false;

struct launch_scope {
  launch_scope() { inside_launch = true; }
  ~launch_scope() { inside_launch = false; }
};
}  // namespace

struct executor::impl {
  executor_options options;
  std::vector<std::unique_ptr<detail::worker>> workers;
  std::vector<std::thread> threads;  // workers[1..]
  std::mutex launch_mutex;           // one launch at a time
  std::mutex mutex;
  std::condition_variable start_cv, done_cv;
  std::uint64_t generation = 0;
  unsigned active = 0;   // workers taking part in the current launch
  unsigned running = 0;  // pool threads not yet done with it
  bool stopping = false;
  detail::launch_state* current = nullptr;
  std::uint64_t launches = 0;
  bool host_observer_installed = false;
  std::vector<agent*> agents;  // attached; guarded by launch_mutex
  // Group commit's flusher, started by the first launch that can use it.
  std::unique_ptr<detail::group_commit> durability;

  void pool_thread(unsigned index) {
    std::uint64_t seen = 0;
    for (;;) {
      detail::launch_state* L;
      {
        std::unique_lock lock(mutex);
        start_cv.wait(lock, [&] { return stopping || (generation != seen && index < active); });
        if (stopping) return;
        seen = generation;
        L = current;
      }
      {
        launch_scope scope;
        workers[index]->run(*L);
      }
      std::lock_guard lock(mutex);
      if (--running == 0) done_cv.notify_one();
    }
  }
};

executor::executor(executor_options options) : impl_(std::make_unique<impl>()) {
  impl_->options = resolve(options);
  for (unsigned i = 0; i < impl_->options.workers; ++i)
    impl_->workers.push_back(std::make_unique<detail::worker>(impl_->options.fiber_stack_bytes));
  // Pools opened from now on report mappings and host persists to the observer.
  if (impl_->options.observer && !host_observer()) {
    set_host_observer(impl_->options.observer);
    impl_->host_observer_installed = true;
  }
}

executor::~executor() {
  if (impl_->host_observer_installed && host_observer() == impl_->options.observer) {
    impl_->options.observer->host_detached();
    set_host_observer(nullptr);
  }
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->start_cv.notify_all();
  for (auto& t : impl_->threads) t.join();
}

const executor_options& executor::options() const { return impl_->options; }

vtime executor::virtual_time() const { return impl_->workers.empty() ? 0 : impl_->workers.front()->virtual_time(); }

durability_stats executor::durability() const {
  return impl_->durability ? impl_->durability->stats() : durability_stats{};
}

agent_attachment executor::attach(agent& a) {
  if (inside_launch) throw config_error(fmt::format("agent '{}' attached from inside a kernel", a.name()));
  std::lock_guard serial(impl_->launch_mutex);
  if (std::find(impl_->agents.begin(), impl_->agents.end(), &a) != impl_->agents.end())
    throw config_error(fmt::format("agent '{}' is already attached to this executor", a.name()));
  impl_->agents.push_back(&a);
  return agent_attachment(*this, a);
}

std::vector<agent*> executor::attached_agents() const {
  std::lock_guard serial(impl_->launch_mutex);
  return impl_->agents;
}

void executor::detach(agent& a) {
  std::lock_guard serial(impl_->launch_mutex);
  std::erase(impl_->agents, &a);
}

agent_attachment::~agent_attachment() {
  if (ex_) ex_->detach(*a_);
}

void executor::run(const launch_config& cfg, detail::thread_loop_fn loop, void* closure) {
  validate(cfg, impl_->options.limits);
  if (inside_launch)
    throw config_error(fmt::format("kernel '{}' was launched from inside a kernel; the cpu executor "
                                   "has no dynamic parallelism",
                                   cfg.name));
  std::lock_guard serial(impl_->launch_mutex);
  detail::launch_state L;
  L.cfg = &cfg;
  L.options = &impl_->options;
  L.loop = loop;
  L.closure = closure;
  L.nblocks = cfg.grid.count();
  detail::rng seeds(impl_->options.seed ^ (0x5851f42d4c957f2dull * ++impl_->launches));
  L.seed = seeds.next();

  observer* const obs = impl_->options.observer;
  if (obs) {
    L.obs = obs;
    // The timed schedule times every space: each access is an instruction.
    const bool timed = impl_->options.policy == schedule::timed;
    L.observed_spaces = timed ? all_spaces : obs->observed_spaces();
    // A load the observer did not ask for is not reported: the timed
    // schedule times it through the model's issue() without a call per lane.
    L.reported_load_spaces = obs->observed_spaces();
    L.scheduling_spaces = timed ? all_spaces
                          : is_deterministic(impl_->options.policy) ? obs->scheduling_spaces() : 0;
    obs->kernel_begin(cfg.name, cfg.grid, cfg.block, cfg.site);
  }

  L.agents = impl_->agents;
  std::uint64_t durability_since = 0;  // tickets issued before this launch
  if (!is_deterministic(impl_->options.policy) && impl_->options.group_commit == 1) {
    if (!impl_->durability) impl_->durability = std::make_unique<detail::group_commit>();
    L.durability = impl_->durability.get();
    durability_since = L.durability->issued();
  }
  // The parallel schedule's agents run on threads of their own while the
  // workers run; the deterministic one steps them in worker 0's rounds.
  std::optional<detail::agent_threads> agent_threads;
  if (!L.agents.empty() && !is_deterministic(impl_->options.policy)) agent_threads.emplace(L);

  const unsigned nworkers =
      unsigned(std::min<std::uint64_t>(impl_->options.workers, L.nblocks));
  if (nworkers > 1) {
    std::lock_guard lock(impl_->mutex);
    while (impl_->threads.size() + 1 < impl_->workers.size())
      impl_->threads.emplace_back([this, i = unsigned(impl_->threads.size() + 1)] {
        impl_->pool_thread(i);
      });
    impl_->current = &L;
    impl_->active = nworkers;
    impl_->running = nworkers - 1;
    ++impl_->generation;
  }
  impl_->start_cv.notify_all();
  {
    launch_scope scope;
    impl_->workers[0]->run(L);
  }
  if (nworkers > 1) {
    std::unique_lock lock(impl_->mutex);
    impl_->done_cv.wait(lock, [&] { return impl_->running == 0; });
    impl_->current = nullptr;
  }
  if (agent_threads) agent_threads->stop();
  // Cancelled threads may have left lines with the flusher: nothing of this
  // launch is flushed after it returns and its pools may close.
  if (L.durability) L.durability->drain();
  if (L.error) std::rethrow_exception(L.error);
  // Lines threads left at their end had no waiter to see their flush fail.
  if (L.durability) L.durability->rethrow_failure_after(durability_since);
  if (obs) obs->kernel_end(cfg.name);  // a failed launch is not reported as ended
}

}  // namespace gpmx::cpu
