#pragma once
// Helpers for the tests of single workloads: runs through the workload
// interface in this process (durability none: the checks, not the speed of
// the disk), crash-point counts and crashed runs in forked children,
// and PM words flipped behind the workload's back.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "common/crash_run.hpp"
#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::test {

struct workload_harness {
  apps::workload& w;
  scratch_dir dir;
  pm::durability mode = pm::durability::none;

  explicit workload_harness(std::string_view name) : w(apps::find_workload(name)) {}
  // One outside the registry (the caller keeps it alive).
  explicit workload_harness(apps::workload& unregistered) : w(unregistered) {}

  apps::params with(const apps::params& changes) const {
    apps::params p = w.small_params();
    for (const auto& [k, v] : changes) p[k] = v;
    return apps::resolve_params(w, p);
  }
  apps::run_report run(const apps::params& p, apps::style s, cpu::schedule policy = cpu::schedule::parallel,
                       std::uint64_t seed = 0) {
    cpu::executor ex({.workers = 2, .policy = policy, .seed = seed});
    return w.run({ex, dir.path(), mode}, p, s);
  }
  // A whole run with seeded bug `bug`, in the style it is written in.
  apps::run_report run_bug(const std::string& bug, const apps::params& p) {
    cpu::executor ex({.workers = 2});
    apps::env e{ex, dir.path(), mode};
    e.bug = bug;
    return w.run(e, p, apps::find_seeded_bug(w, bug).s);
  }
  apps::recover_report recover() {
    cpu::executor ex({.workers = 2});
    return w.recover({ex, dir.path(), mode});
  }
  apps::verify_report verify() {
    cpu::executor ex({.workers = 2});
    return w.verify({ex, dir.path(), mode});
  }
  // Crash points of a whole run in a child, under the given schedule.
  std::uint64_t crash_points(const apps::params& p, apps::style s, cpu::schedule policy, std::uint64_t seed) {
    const apps::child_outcome r = apps::run_in_child(0, [&] {
      cpu::executor ex({.workers = 2, .policy = policy, .seed = seed});
      w.run({ex, dir.path(), pm::durability::msync}, p, s);
    });
    EXPECT_FALSE(r.failed) << r.error;
    return r.points;
  }
  // A run killed right after crash point `at`, in a child.
  void run_killed_at(const apps::params& p, apps::style s, std::uint64_t at) {
    const apps::child_outcome r = apps::run_in_child(at, [&] {
      cpu::executor ex({.workers = 2});
      w.run({ex, dir.path(), pm::durability::msync}, p, s);
    });
    ASSERT_FALSE(r.failed) << r.error;
    ASSERT_TRUE(r.killed);
  }
  // XORs `mask` into the 8-byte word `word` of region `region` of pool file `file`.
  void flip_word(const std::string& file, const std::string& region, std::uint64_t word, std::uint64_t mask) {
    pm::pool p = pm::pool::open(dir / file, pm::durability::none);
    pm::region r = p.find(region);
    ASSERT_LT(word * 8, r.size());
    r.as<std::uint64_t>()[word] ^= mask;
  }
  std::uint64_t read_word(const std::string& file, const std::string& region, std::uint64_t word) {
    pm::pool p = pm::pool::open(dir / file, pm::durability::none);
    return p.find(region).as<std::uint64_t>()[word];
  }
};

// Seeded bug `bug` of `workload` on the test sizes: the run completes and,
// since a seeded bug loses data only in a crash, its result verifies and
// there is nothing to recover.
inline void expect_seeded_bug_run_verifies(std::string_view workload, const std::string& bug) {
  workload_harness h(workload);
  const apps::run_report r = h.run_bug(bug, h.with({}));
  EXPECT_GT(r.operations, 0u);
  const apps::verify_report v = h.verify();
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_FALSE(h.recover().repaired);
}

// Expects `f` to throw config_error whose message names `param`.
template <class F>
void expect_config_error_naming(F&& f, const std::string& param) {
  try {
    f();
    ADD_FAILURE() << "no config_error for " << param;
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << e.what();
  }
}

}  // namespace gpmx::test
