// Seeded bugs across every workload (docs/workloads.md, "Seeded bugs"): a
// bug name a workload does not know, or a bug run in the other style, is a
// config_error naming it, thrown before anything is written; every declared
// bug is well formed; and a bug's run really differs from the correct code's:
// its trace does, or, for the bugs in host code (which traces do not record),
// a run killed at some crash point leaves PM that recovery cannot repair.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/crash_run.hpp"
#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "gpmx/trace/recorder.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::apps;

// Runs w on its test sizes with `bug` in style s; expects a config_error
// naming `named` and an untouched directory.
void expect_refused(workload& w, const std::string& bug, style s, const std::string& named) {
  scratch_dir dir;
  cpu::executor ex({.workers = 2});
  env e{ex, dir.path() / "w", pm::durability::none};
  e.bug = bug;
  try {
    (void)w.run(e, resolve_params(w, w.small_params()), s);
    ADD_FAILURE() << w.name() << ": no config_error for bug '" << bug << "' in style " << to_string(s);
  } catch (const config_error& x) {
    EXPECT_NE(std::string(x.what()).find(named), std::string::npos) << x.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "w")) << w.name() << " wrote files before refusing";
}

// What a trace says a run did, without addresses (which differ between runs).
using step = std::tuple<trace::event_kind, scope, std::string, std::uint32_t>;
std::vector<step> traced_steps(workload& w, const std::string& bug, style s) {
  scratch_dir dir;
  trace::recorder rec;
  {
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = 1, .observer = &rec});
    env e{ex, dir.path(), pm::durability::none};
    e.bug = bug;
    (void)w.run(e, resolve_params(w, w.small_params()), s);
  }
  const trace::trace t = rec.take();
  std::vector<step> out;
  for (const trace::event& ev : t.events) out.emplace_back(ev.kind, ev.scope_of, t.text_of(ev), ev.line);
  return out;
}

// Bugs whose wrong order lies in host code: kernel traces do not show them.
bool in_host_code(const std::string& bug) { return bug == "flip-before-copy" || bug == "early-coefficients-commit"; }

// Whether a run with `bug` (empty: the correct code) killed at some crash
// point (every stride-th is tried) leaves PM that recovery and verify reject.
// Each step runs in a child, as in the WorkloadCrash tests.
bool some_kill_breaks_recovery(workload& w, const std::string& bug, style s, std::uint64_t stride) {
  scratch_dir dir;
  const auto run = [&](std::uint64_t at) {
    return run_in_child(at, [&] {
      cpu::executor ex({.workers = 2});
      env e{ex, dir.path(), pm::durability::none};
      e.bug = bug;
      (void)w.run(e, resolve_params(w, w.small_params()), s);
    });
  };
  const child_outcome whole = run(0);
  EXPECT_FALSE(whole.failed) << whole.error;
  for (std::uint64_t at = 1; at < whole.points; at += stride) {
    const child_outcome killed = run(at);
    EXPECT_TRUE(killed.killed && !killed.failed) << killed.error;
    const child_outcome checked = run_in_child(0, [&] {
      cpu::executor ex({.workers = 2});
      const env e{ex, dir.path(), pm::durability::none};
      (void)w.recover(e);
      if (!w.verify(e).ok) throw std::runtime_error("verify failed");
    });
    if (checked.failed) return true;
  }
  return false;
}

TEST(SeededBugs, AnUnknownBugIsRefusedByEveryWorkload) {
  for (const auto& w : all_workloads()) {
    SCOPED_TRACE(std::string(w->name()));
    expect_refused(*w, "no-such-bug", style::epoch, "no-such-bug");
  }
}

TEST(SeededBugs, ABugRunInTheOtherStyleIsRefused) {
  for (const auto& w : all_workloads())
    for (const seeded_bug& b : w->seeded_bugs()) {
      SCOPED_TRACE(std::string(w->name()) + " " + b.name);
      expect_refused(*w, b.name, b.s == style::epoch ? style::sbrp : style::epoch, b.name);
    }
}

TEST(SeededBugs, EveryBugIsWellFormedAndTheyCoverTheWorkloads) {
  std::set<std::string> distinct;
  std::set<std::string> with_bugs;
  for (const auto& w : all_workloads()) {
    std::set<std::string> names;
    for (const seeded_bug& b : w->seeded_bugs()) {
      SCOPED_TRACE(std::string(w->name()) + " " + b.name);
      EXPECT_TRUE(names.insert(b.name).second) << "declared twice";
      EXPECT_FALSE(b.name.empty());
      for (char c : b.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') << b.name;
      EXPECT_GT(b.description.size(), 40u) << "say what the careless programmer did";
      EXPECT_TRUE(b.model == "epoch" || b.model == "sbrp") << b.model;
      EXPECT_EQ(find_seeded_bug(*w, b.name).name, b.name);
      distinct.insert(b.name);
      with_bugs.insert(std::string(w->name()));
    }
  }
  EXPECT_GE(distinct.size(), 10u);
  for (const char* w : {"gpkvs", "gpdb", "reduction", "prefix-sum", "multiqueue", "scan", "bfs", "hashmap", "srad",
                        "blk", "hotspot", "cfd", "dnn"})
    EXPECT_TRUE(with_bugs.contains(w)) << w << " has no seeded bug";
}

TEST(SeededBugs, EachKernelBugChangesTheTrace) {
  for (const auto& w : all_workloads())
    for (const seeded_bug& b : w->seeded_bugs()) {
      if (in_host_code(b.name)) continue;
      SCOPED_TRACE(std::string(w->name()) + " " + b.name);
      EXPECT_NE(traced_steps(*w, b.name, b.s), traced_steps(*w, "", b.s));
    }
}

// The host-side bugs are visible even to a process kill (a prefix of the
// stores): the state is wrong after recovery, where the correct code's is not.
TEST(SeededBugs, HostSideBugsShowAfterAKill) {
  workload& blk = find_workload("blk");
  EXPECT_TRUE(some_kill_breaks_recovery(blk, "flip-before-copy", style::epoch, 1));
  EXPECT_FALSE(some_kill_breaks_recovery(blk, "", style::epoch, 1));
  workload& srad = find_workload("srad");
  EXPECT_TRUE(some_kill_breaks_recovery(srad, "early-coefficients-commit", style::epoch, 97));
  EXPECT_FALSE(some_kill_breaks_recovery(srad, "", style::epoch, 97));
}

}  // namespace
