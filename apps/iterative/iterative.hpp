#pragma once
// GPM's checkpointing workloads (GPM section 4.2: BLK, HS, CFD, DNN): an
// iterative computation whose state lives in volatile memory (the GPU's
// device memory) and is saved with gpmx's checkpoint API every `interval`
// iterations, together with the number of iterations it holds. Recovery
// restores the last consistent checkpoint and runs the remaining iterations;
// the check compares the final checkpoint with an uninterrupted run of the
// same kernels in DRAM.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/workload.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::apps::iterative {

// One state array a checkpoint saves.
struct state_array {
  std::string name;
  float* data;
  std::uint64_t count;
};

// The computation. A fresh app holds the initial state, which depends only
// on the parameters; step(i) depends only on the state and i, so restoring a
// checkpoint taken after i iterations and stepping on from i gives the
// uninterrupted run's result.
class app {
 public:
  virtual ~app() = default;
  // The checkpointed state, in registration order (fixed for the app's life).
  virtual std::vector<state_array> state() = 0;
  // Iteration `iteration` (from 0), in DRAM.
  virtual void step(const launch_target& ex, std::uint64_t iteration) = 0;
  // What step counts, per iteration (see run_report).
  virtual std::uint64_t operations_per_iteration() const = 0;

  // PM the computation writes itself, besides the checkpoint (dnn's loss
  // history); 0 for none. After attach_pm, step writes it, ordered by `s`.
  virtual std::uint64_t own_pm_bytes() const { return 0; }
  virtual void attach_pm(const pm::region&, style) {}
  // Checks that PM against `reference` (a fresh app stepped `iterations`
  // times without PM). ok with an empty detail when there is nothing to check.
  virtual verify_report check_own_pm(const pm::region&, app& /*reference*/, std::uint64_t /*iterations*/) {
    return {true, 0, ""};
  }
};

// A workload over an app: parameters "iterations" and "interval" plus the
// app's own. Files: <name>.cp (the checkpoint) and <name>.pool (meta and
// the app's own PM).
class checkpointed_workload : public workload {
 public:
  // The app for validated parameters; throws config_error naming a bad one.
  virtual std::unique_ptr<app> make_app(const params& p) const = 0;
  virtual std::string_view unit() const = 0;

  run_report run(const env& e, const params& p, style s) override;
  recover_report recover(const env& e) override;
  // flip-before-copy (epoch), shared by every checkpointed workload.
  std::vector<seeded_bug> seeded_bugs() const override;
  verify_report verify(const env& e) override;
};

// Parameters every checkpointed workload has; checks iterations >= 1 and
// 1 <= interval, throwing config_error naming the workload and parameter.
struct schedule {
  std::uint64_t iterations, interval;
};
schedule schedule_of(std::string_view workload, const params& p);
// A parameter in [lo, hi], else config_error naming it.
std::uint64_t checked(std::string_view workload, const params& p, const char* name, std::uint64_t lo,
                      std::uint64_t hi);

}  // namespace gpmx::apps::iterative
