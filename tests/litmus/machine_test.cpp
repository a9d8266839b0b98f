#include <gtest/gtest.h>

#include <string>

#include "gpmx/litmus/check.hpp"
#include "gpmx/litmus/eval.hpp"
#include "gpmx/litmus/machine.hpp"
#include "gpmx/litmus/parser.hpp"

namespace lt = gpmx::litmus;

namespace {

// Whether some finished run of the relaxed machine satisfies cond.
bool machine_reaches(const std::string& text) {
  const lt::Program p = lt::parse_program(text, "t.litmus");
  const lt::MachineResult m = lt::run_machine(p);
  for (const auto& o : m.outcomes)
    if (lt::eval_final(p.cond, p, o.mem, o.regs) != 0) return true;
  return false;
}

}  // namespace

TEST(LitmusMachine, ReordersDataButNotAcrossReleaseAndAcquire) {
  const char* mp = R"(init { x = 0; f = 0; }
    thread T0 { store.data x, 1; store.%s f, 1; }
    thread T1 { r = load.%s f; s = load.data x; }
    exists (T1:r == 1 && T1:s == 0))";
  auto sub = [&](const char* label) {
    std::string t = mp;
    for (auto pos = t.find("%s"); pos != std::string::npos; pos = t.find("%s")) t.replace(pos, 2, label);
    return t;
  };
  EXPECT_FALSE(machine_reaches(sub("paired")));
  EXPECT_TRUE(machine_reaches(sub("unpaired")));
  EXPECT_TRUE(machine_reaches(sub("non-ordering")));
}

TEST(LitmusMachine, UnpairedAtomicsKeepOrderAmongThemselves) {
  EXPECT_FALSE(machine_reaches(R"(init { x = 0; y = 0; }
    thread T0 { store.unpaired x, 1; r = load.unpaired y; }
    thread T1 { store.unpaired y, 1; s = load.unpaired x; }
    exists (T0:r == 0 && T1:s == 0))"));
  EXPECT_TRUE(machine_reaches(R"(init { x = 0; y = 0; }
    thread T0 { store.quantum x, 1; r = load.quantum y; }
    thread T1 { store.quantum y, 1; s = load.quantum x; }
    exists (T0:r == 0 && T1:s == 0))"));
}

TEST(LitmusMachine, NoSpeculativeStoresAndSameLocationOrder) {
  // Load buffering without dependencies: reachable.
  EXPECT_TRUE(machine_reaches(R"(init { x = 0; y = 0; }
    thread T0 { r = load.data x; store.data y, 1; }
    thread T1 { s = load.data y; store.data x, 1; }
    exists (T0:r == 1 && T1:s == 1))"));
  // With a data dependency and a control dependency: not (no out-of-thin-air).
  EXPECT_FALSE(machine_reaches(R"(init { x = 0; y = 0; }
    thread T0 { r = load.data x; store.data y, r; }
    thread T1 { s = load.data y; if (s == 1) { store.data x, 1; } }
    exists (T0:r == 1 && T1:s == 1))"));
  // Same-location program order is kept (CoRR).
  EXPECT_FALSE(machine_reaches(R"(init { x = 0; }
    thread T0 { store.data x, 1; }
    thread T1 { r = load.data x; s = load.data x; }
    exists (T1:r == 1 && T1:s == 0))"));
}

TEST(LitmusMachine, ReadModifyWritesAreAtomicAndAwaitsBlock) {
  const lt::Program p = lt::parse_program(R"(init { c = 0; f = 0; }
    thread A { rmw.inc.quantum c; rmw.inc.quantum c; }
    thread B { rmw.inc.quantum c; store.paired f, 1; }
    thread C { r = load.paired f await r == 1; })", "t.litmus");
  const lt::MachineResult m = lt::run_machine(p);
  ASSERT_EQ(m.outcomes.size(), 1U);
  EXPECT_EQ(m.outcomes[0].mem[0], 3);
  EXPECT_GT(m.states, 1U);
}

TEST(LitmusMachine, TheoremCheck) {
  // Legal: every machine outcome is an SC outcome.
  auto r = lt::check_program(lt::parse_program(R"(init { x = 0; y = 0; }
    thread T0 { store.paired x, 1; store.paired y, 2; }
    thread T1 { store.paired y, 1; store.paired x, 2; })", "t.litmus"), {{}, true});
  ASSERT_TRUE(r.system.has_value());
  EXPECT_TRUE(r.system->theorem_holds());
  // Racy 2+2W: the machine ends with x == 1 && y == 1, which SC cannot.
  r = lt::check_program(lt::parse_program(R"(init { x = 0; y = 0; }
    thread T0 { store.data x, 1; store.data y, 2; }
    thread T1 { store.data y, 1; store.data x, 2; })", "t.litmus"), {{}, true});
  ASSERT_TRUE(r.system.has_value());
  ASSERT_EQ(r.system->non_sc.size(), 1U);
  EXPECT_EQ(r.system->non_sc[0], (std::vector<lt::Value>{1, 1}));
}
