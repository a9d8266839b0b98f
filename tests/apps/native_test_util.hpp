#pragma once
// Helpers for the native-persistence workloads' tests (reduction, scan,
// prefix-sum): run a workload in a fresh directory, change words of its pool
// as a crash or a corruption would leave them, count the PM stores a step makes.
#include <cstdint>
#include <span>
#include <string>

#include "common/registry.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::test {

class native_run {
 public:
  native_run(std::string_view workload, apps::params given, cpu::executor_options o = {.workers = 2})
      : w_(apps::find_workload(workload)), given_(std::move(given)), ex_(o) {}

  apps::env env() { return {ex_, dir_.path(), pm::durability::none}; }
  apps::run_report run(apps::style s) { return w_.run(env(), apps::resolve_params(w_, given_), s); }
  apps::recover_report recover() { return w_.recover(env()); }
  apps::verify_report verify() { return w_.verify(env()); }

  // Hands region `region` of the pool file `file` to f as words, then persists it.
  template <class F>
  void poke(const char* file, const char* region, F&& f) {
    pm::pool p = pm::pool::open(dir_ / file, pm::durability::none);
    const pm::region r = p.find(region);
    f(r.as<std::uint64_t>());
    r.persist();
  }
  // PM stores (and host crash points) made by f.
  template <class F>
  static std::uint64_t crash_points_of(F&& f) {
    crash_trigger::arm(0, nullptr);
    f();
    const std::uint64_t n = crash_trigger::count();
    crash_trigger::disarm();
    return n;
  }

 private:
  apps::workload& w_;
  apps::params given_;
  cpu::executor ex_;
  scratch_dir dir_;
};

}  // namespace gpmx::test
