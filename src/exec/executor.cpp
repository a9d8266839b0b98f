// The cpu executor: a pool of worker threads that each run worker::run over
// the same launch; the launching thread is worker 0.
#include "gpmx/exec/cpu/executor.hpp"

#include <condition_variable>
#include <fmt/format.h>
#include <mutex>
#include <thread>

#include "gpmx/exec/errors.hpp"
#include "gpmx/trace/recorder.hpp"
#include "launch_state.hpp"
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
  // Pools opened from now on report host stores and persists to the recorder.
  if (impl_->options.policy == schedule::trace && impl_->options.recorder && !trace::host_recorder())
    trace::set_host_recorder(impl_->options.recorder);
}

executor::~executor() {
  if (impl_->options.recorder && trace::host_recorder() == impl_->options.recorder) {
    impl_->options.recorder->stop_watching();
    trace::set_host_recorder(nullptr);
  }
  {
    std::lock_guard lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->start_cv.notify_all();
  for (auto& t : impl_->threads) t.join();
}

const executor_options& executor::options() const { return impl_->options; }

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

  trace::recorder* const rec =
      impl_->options.policy == schedule::trace ? impl_->options.recorder : nullptr;
  if (rec) rec->kernel_begin(cfg.name, cfg.grid, cfg.block);

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
  if (L.error) std::rethrow_exception(L.error);
  if (rec) rec->kernel_end();  // a failed launch's trace ends without it
}

}  // namespace gpmx::cpu
