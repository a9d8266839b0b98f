#pragma once
// Agents: services that run beside kernel launches, such as an emulated
// storage controller serving queues that kernel threads fill, or a drainer.
// Kernel threads spin on what an agent provides, so the executor must keep
// stepping the agent while they spin and must not call that a deadlock.
//
//   struct producer : gpmx::agent { ... step() { publish one item; return progressed; } };
//   producer p;
//   auto on = ex.attach(p);        // stepped beside every launch while `on` lives
//   ex.launch(cfg, consumer{}, ...);
//
// In the parallel schedule an attached agent runs on an OS thread of its own
// for the duration of each launch; in the deterministic schedule the worker
// steps every agent once per scheduling round (in a seeded order), so a run
// stays a function of the seed, and an observer sees each step that worked.
#include <string_view>

namespace gpmx {

class agent {
 public:
  enum class step_result {
    idle,        // no work: nothing to do until kernel threads ask for more
    waiting,     // work in flight that this step could not advance (I/O pending)
    progressed,  // did some work
  };
  virtual ~agent() = default;
  // Does a bounded piece of work and returns; never blocks on kernel threads.
  virtual step_result step() = 0;
  // For deadlock reports and traces.
  virtual std::string_view name() const = 0;
};

}  // namespace gpmx
