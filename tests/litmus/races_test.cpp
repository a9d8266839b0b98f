#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gpmx/litmus/check.hpp"
#include "gpmx/litmus/parser.hpp"

namespace lt = gpmx::litmus;

namespace {

lt::check_result check(const std::string& text) {
  return lt::check_program(lt::parse_program(text, "t.litmus"));
}

std::string verdict(const lt::check_result& r, lt::consistency_model m) {
  for (const auto& v : r.models)
    if (v.model == m) return v.verdict();
  return "?";
}

}  // namespace

TEST(LitmusRaces, DataRaceDependsOnTheModelsSynchronization) {
  const auto r = check(R"(init { x = 0; f = 0; }
    thread T0 { store.data x, 1; store.unpaired f, 1; }
    thread T1 { r = load.unpaired f; if (r == 1) { s = load.data x; } })");
  EXPECT_EQ(verdict(r, lt::consistency_model::drf0), "legal");  // every atomic synchronizes in DRF0
  EXPECT_EQ(verdict(r, lt::consistency_model::drf1), "data");   // unpaired atomics do not
  EXPECT_EQ(verdict(r, lt::consistency_model::drfrlx), "data");
  // The witness names the racing pair and shows an execution.
  for (const auto& v : r.models)
    if (v.model == lt::consistency_model::drf1) {
      const auto& w = v.races.at(lt::race_class::data);
      EXPECT_NE(w.pair.find("store.data x"), std::string::npos) << w.pair;
      EXPECT_NE(w.pair.find("load.data x"), std::string::npos) << w.pair;
      EXPECT_NE(w.execution.find("T1#0 load.unpaired f read 1"), std::string::npos) << w.execution;
    }
}

TEST(LitmusRaces, Commutative) {
  // Increments commute and their values are unused: legal.
  EXPECT_EQ(verdict(check("init { c = 0; } thread A { rmw.add.commutative c, 2; } thread B { rmw.inc.commutative c; }"),
                    lt::consistency_model::drfrlx),
            "legal");
  // Equal-value stores commute.
  EXPECT_EQ(verdict(check("init { c = 0; } thread A { store.commutative c, 1; } thread B { store.commutative c, 1; }"),
                    lt::consistency_model::drfrlx),
            "legal");
  // Different values do not.
  EXPECT_EQ(verdict(check("init { c = 0; } thread A { store.commutative c, 1; } thread B { store.commutative c, 2; }"),
                    lt::consistency_model::drfrlx),
            "commutative");
  // An add and a max do not commute from 0 (0+1 max 1 = 1, max 1 then +1 = 2).
  EXPECT_EQ(verdict(check("init { c = 0; } thread A { rmw.add.commutative c, 1; } thread B { rmw.max.commutative c, 1; }"),
                    lt::consistency_model::drfrlx),
            "commutative");
  // A used return value (data dependency into a store) is a race.
  EXPECT_EQ(verdict(check("init { c = 0; o = 0; } thread A { r = rmw.inc.commutative c; store.data o, r; }"
                          " thread B { rmw.inc.commutative c; }"),
                    lt::consistency_model::drfrlx),
            "commutative");
  // An unused return value is not.
  EXPECT_EQ(verdict(check("init { c = 0; o = 0; } thread A { r = rmw.inc.commutative c; store.data o, 1; }"
                          " thread B { rmw.inc.commutative c; }"),
                    lt::consistency_model::drfrlx),
            "legal");
}

TEST(LitmusRaces, CommuteFunction) {
  lt::event a, b;
  a.writes = b.writes = true;
  a.kind = b.kind = lt::access_kind::rmw;
  a.rmw = lt::rmw_op::add;
  a.operands = {3};
  b.rmw = lt::rmw_op::sub;
  b.operands = {1};
  EXPECT_TRUE(lt::commute(a, b));
  b.rmw = lt::rmw_op::exchange;
  b.operands = {5};
  EXPECT_FALSE(lt::commute(a, b));
  b.writes = false;  // a load (or failed compare-exchange) leaves memory alone
  EXPECT_TRUE(lt::commute(a, b));
}

TEST(LitmusRaces, NonOrderingPerPath) {
  const auto a = check(R"(init { X = 0; Y = 0; }
    thread T0 { store.unpaired X, 3; store.non-ordering Y, 2; }
    thread T1 { r1 = load.non-ordering Y; r2 = load.unpaired X; })");
  EXPECT_EQ(verdict(a, lt::consistency_model::drfrlx), "non-ordering");
  EXPECT_EQ(verdict(a, lt::consistency_model::drf1), "legal");
  const auto b = check(R"(init { X = 0; Y = 0; Z = 0; }
    thread T0 { store.unpaired X, 3; store.paired Z, 1; store.non-ordering Y, 2; }
    thread T1 { r1 = load.non-ordering Y; r0 = load.paired Z; r2 = load.unpaired X; })");
  EXPECT_EQ(verdict(b, lt::consistency_model::drfrlx), "legal");
  // A valid path of same-address atomics: the ordering path between the two
  // accesses to X also has X -po-> X edges, so the non-ordering flag is harmless.
  const auto c = check(R"(init { X = 0; Y = 0; }
    thread T0 { store.unpaired X, 1; store.non-ordering Y, 1; store.unpaired X, 2; }
    thread T1 { r = load.non-ordering Y; })");
  EXPECT_EQ(verdict(c, lt::consistency_model::drfrlx), "legal");
}

TEST(LitmusRaces, Speculative) {
  // An unused racy speculative load is fine.
  EXPECT_EQ(verdict(check("init { d = 0; } thread A { store.speculative d, 1; } thread B { r = load.speculative d; }"),
                    lt::consistency_model::drfrlx),
            "legal");
  // A used one (control dependency) is not.
  EXPECT_EQ(verdict(check("init { d = 0; o = 0; } thread A { store.speculative d, 1; }"
                          " thread B { r = load.speculative d; if (r == 1) { store.data o, 1; } }"),
                    lt::consistency_model::drfrlx),
            "speculative");
  // Address dependency counts as use.
  EXPECT_EQ(verdict(check("init { d = 0; a[2] = 0; } thread A { store.speculative d, 1; }"
                          " thread B { r = load.speculative d; s = load.data a[r]; }"),
                    lt::consistency_model::drfrlx),
            "speculative");
  // Two racing speculative stores.
  EXPECT_EQ(verdict(check("init { d = 0; } thread A { store.speculative d, 1; } thread B { store.speculative d, 1; }"),
                    lt::consistency_model::drfrlx),
            "speculative");
}

TEST(LitmusRaces, QuantumOnTheQuantumEquivalentProgram) {
  EXPECT_EQ(verdict(check("init { c = 0; } thread A { store.quantum c, 1; } thread B { r = load.quantum c; }"),
                    lt::consistency_model::drfrlx),
            "legal");
  EXPECT_EQ(verdict(check("init { c = 0; } thread A { store.quantum c, 1; } thread B { r = load.unpaired c; }"),
                    lt::consistency_model::drfrlx),
            "quantum");
  // Only in Pq can the quantum load return 5, sending B to the racy branch.
  const auto r = check(R"(domain 5;
    init { q = 0; x = 0; }
    thread A { r = load.quantum q; if (r == 5) { store.data x, 1; } }
    thread B { s = load.data x; })");
  EXPECT_EQ(verdict(r, lt::consistency_model::drfrlx), "data");
  EXPECT_EQ(verdict(r, lt::consistency_model::drf1), "legal");
  ASSERT_TRUE(r.pq.has_value());
  EXPECT_EQ(r.domain, (std::vector<lt::value>{0, 1, 5}));
}

TEST(LitmusRaces, Heterogeneous) {
  const auto r = check(R"(init { c = 0; }
    thread A cu 0 { rmw.add.paired.local c, 1; }
    thread B cu 1 { rmw.add.paired.local c, 1; })");
  EXPECT_EQ(verdict(r, lt::consistency_model::hrf_direct), "heterogeneous");
  EXPECT_EQ(verdict(r, lt::consistency_model::hrf_indirect), "heterogeneous");
  EXPECT_EQ(verdict(r, lt::consistency_model::drf0), "legal");
  const auto same = check(R"(init { c = 0; }
    thread A cu 0 { rmw.add.paired.local c, 1; }
    thread B cu 0 { rmw.add.paired.local c, 1; })");
  EXPECT_EQ(verdict(same, lt::consistency_model::hrf_direct), "legal");
}

TEST(LitmusEnumerate, SleepSetsVisitEachTraceOnce) {
  // No conflicts: every interleaving is one trace.
  auto r = check("init { x = 0; y = 0; } thread A { store.data x, 1; store.data x, 2; } thread B { store.data y, 1; r = load.data y; }");
  EXPECT_EQ(r.sc.executions, 1U);
  // Store buffering: 4 conflict orders, one of them cyclic.
  r = check("init { x = 0; y = 0; } thread A { store.data x, 1; r = load.data y; } thread B { store.data y, 1; s = load.data x; }");
  EXPECT_EQ(r.sc.executions, 3U);
  // Three increments of one location: 3! orders.
  r = check("init { c = 0; } thread A { rmw.inc.paired c; } thread B { rmw.inc.paired c; } thread C { rmw.inc.paired c; }");
  EXPECT_EQ(r.sc.executions, 6U);
  // Two reads never conflict.
  r = check("init { c = 0; } thread A { r = load.paired c; } thread B { s = load.paired c; }");
  EXPECT_EQ(r.sc.executions, 1U);
}

TEST(LitmusEnumerate, SafeStepsAreNotInterleaved) {
  // Only the stores to x conflict: 4! traces, whatever the reads of y do.
  const auto r = check(R"(init { x = 0; y = 0; }
    thread A { store.data x, 1; r = load.paired y; }
    thread B { store.data x, 2; r = load.paired y; }
    thread C { store.data x, 3; r = load.paired y; }
    thread D { store.data x, 4; r = load.paired y; })");
  EXPECT_EQ(r.sc.executions, 24U);
  EXPECT_EQ(r.sc.sleep_blocked, 0U);
}

TEST(LitmusEnumerate, FinalConditionAndBoundedLoops) {
  auto r = check(R"(init { x = 0; f = 0; }
    thread T0 { store.data x, 1; store.paired f, 1; }
    thread T1 { r = load.paired f; while (r == 0) bound 3 { r = load.paired f; } s = load.data x; }
    forall (T1:s == 1))");
  EXPECT_TRUE(r.cond);
  EXPECT_EQ(verdict(r, lt::consistency_model::drf1), "legal");
  EXPECT_GT(r.sc.executions, r.sc.complete);  // some runs hit the loop bound
  r = check(R"(init { x = 0; } thread T0 { store.data x, 1; } thread T1 { r = load.data x; } exists (T1:r == 1 && x == 1))");
  EXPECT_TRUE(r.cond);
  EXPECT_EQ(r.cond_satisfied, 1U);
}
