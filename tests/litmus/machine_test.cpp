#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "gpmx/litmus/check.hpp"
#include "gpmx/litmus/eval.hpp"
#include "gpmx/litmus/machine.hpp"
#include "gpmx/litmus/parser.hpp"

namespace lt = gpmx::litmus;

namespace {

// Whether some finished run of the relaxed machine satisfies cond.
bool machine_reaches(const std::string& text) {
  const lt::program p = lt::parse_program(text, "t.litmus");
  const lt::machine_result m = lt::run_machine(p);
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
  const lt::program p = lt::parse_program(R"(init { c = 0; f = 0; }
    thread A { rmw.inc.quantum c; rmw.inc.quantum c; }
    thread B { rmw.inc.quantum c; store.paired f, 1; }
    thread C { r = load.paired f await r == 1; })", "t.litmus");
  const lt::machine_result m = lt::run_machine(p);
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
  EXPECT_EQ(r.system->non_sc[0], (std::vector<lt::value>{1, 1}));
}

// An independent, axiomatic reference for the machine on straight-line
// programs of loads and constant stores: enumerate every rf and co, keep the
// candidates where (kept po | rf | co | fr) is acyclic, and compare their
// outcomes with the operational machine's.
namespace {

struct ref_event {
  int thread = 0;
  const lt::instr* in = nullptr;
  int addr = 0;
  lt::value wval = 0;
};

bool straight_line(const lt::program& p) {
  std::size_t accesses = 0;
  for (const auto& t : p.threads) accesses += t.code.size();
  if (accesses > 8) return false;  // the reference enumerates every rf and co
  for (const auto& t : p.threads)
    for (const auto& in : t.code) {
      if (in.op != lt::instr_op::access || in.kind == lt::access_kind::rmw || in.await_cond || in.index) return false;
      for (const auto& o : in.operands)
        if (o.kind != lt::expr_kind::constant) return false;
    }
  return true;
}

bool kept_ref(const lt::instr& a, const lt::instr& b, int addr_a, int addr_b) {
  auto pu = [](const lt::instr& i) { return i.label == lt::access_label::paired || i.label == lt::access_label::unpaired; };
  const bool acq = a.label == lt::access_label::paired && a.kind != lt::access_kind::store;
  const bool rel = b.label == lt::access_label::paired && b.kind != lt::access_kind::load;
  return addr_a == addr_b || (pu(a) && pu(b)) || acq || rel;
}

std::set<lt::machine_outcome> axiomatic_outcomes(const lt::program& p) {
  std::vector<ref_event> ev;
  for (std::size_t t = 0; t < p.threads.size(); ++t)
    for (const auto& in : p.threads[t].code) {
      ref_event e;
      e.thread = static_cast<int>(t);
      e.in = &in;
      e.addr = p.locs[static_cast<std::size_t>(in.loc)].base;
      if (in.kind == lt::access_kind::store) e.wval = in.operands[0].constant;
      ev.push_back(e);
    }
  const int n = static_cast<int>(ev.size());
  std::vector<int> loads, stores_of_addr_count(static_cast<std::size_t>(p.mem_size), 0);
  std::vector<std::vector<int>> co(static_cast<std::size_t>(p.mem_size));  // per address, store order
  for (int i = 0; i < n; ++i) {
    if (ev[static_cast<std::size_t>(i)].in->kind == lt::access_kind::load) loads.push_back(i);
    else co[static_cast<std::size_t>(ev[static_cast<std::size_t>(i)].addr)].push_back(i);
  }
  for (auto& c : co) std::sort(c.begin(), c.end());
  std::set<lt::machine_outcome> out;
  std::vector<int> rf(loads.size(), -1);  // -1: the initial value
  // Iterate over all co permutations (per address) and all rf choices.
  std::function<void(std::size_t)> choose_co;
  std::function<void(std::size_t)> choose_rf = [&](std::size_t k) {
    if (k < loads.size()) {
      const int l = loads[k];
      rf[k] = -1;
      choose_rf(k + 1);
      for (int s : co[static_cast<std::size_t>(ev[static_cast<std::size_t>(l)].addr)]) {
        rf[k] = s;
        choose_rf(k + 1);
      }
      return;
    }
    // Build the graph and test acyclicity.
    std::vector<std::vector<int>> g(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const auto& a = ev[static_cast<std::size_t>(i)];
        const auto& b = ev[static_cast<std::size_t>(j)];
        if (a.thread == b.thread && kept_ref(*a.in, *b.in, a.addr, b.addr)) g[static_cast<std::size_t>(i)].push_back(j);
      }
    for (const auto& c : co)
      for (std::size_t i = 1; i < c.size(); ++i) g[static_cast<std::size_t>(c[i - 1])].push_back(c[i]);
    for (std::size_t k2 = 0; k2 < loads.size(); ++k2) {
      const int l = loads[k2];
      const auto& order = co[static_cast<std::size_t>(ev[static_cast<std::size_t>(l)].addr)];
      std::size_t first_after = 0;
      if (rf[k2] >= 0) {
        g[static_cast<std::size_t>(rf[k2])].push_back(l);
        first_after = static_cast<std::size_t>(std::find(order.begin(), order.end(), rf[k2]) - order.begin()) + 1;
      }
      if (first_after < order.size()) g[static_cast<std::size_t>(l)].push_back(order[first_after]);  // fr
    }
    std::vector<int> state(static_cast<std::size_t>(n), 0);
    std::function<bool(int)> cyclic = [&](int v) {
      state[static_cast<std::size_t>(v)] = 1;
      for (int w : g[static_cast<std::size_t>(v)]) {
        if (state[static_cast<std::size_t>(w)] == 1) return true;
        if (state[static_cast<std::size_t>(w)] == 0 && cyclic(w)) return true;
      }
      state[static_cast<std::size_t>(v)] = 2;
      return false;
    };
    for (int v = 0; v < n; ++v)
      if (state[static_cast<std::size_t>(v)] == 0 && cyclic(v)) return;
    lt::machine_outcome o;
    o.mem = p.initial_memory();
    for (std::size_t a = 0; a < co.size(); ++a)
      if (!co[a].empty()) o.mem[a] = ev[static_cast<std::size_t>(co[a].back())].wval;
    for (const auto& t : p.threads) o.regs.emplace_back(t.regs.size(), 0);
    for (std::size_t k2 = 0; k2 < loads.size(); ++k2) {
      const auto& e = ev[static_cast<std::size_t>(loads[k2])];
      const lt::value v = rf[k2] < 0 ? p.initial_memory()[static_cast<std::size_t>(e.addr)]
                                     : ev[static_cast<std::size_t>(rf[k2])].wval;
      o.regs[static_cast<std::size_t>(e.thread)][static_cast<std::size_t>(e.in->dst)] = v;
    }
    out.insert(o);
  };
  choose_co = [&](std::size_t a) {
    if (a == co.size()) {
      choose_rf(0);
      return;
    }
    auto& c = co[a];
    std::sort(c.begin(), c.end());
    do { choose_co(a + 1); } while (std::next_permutation(c.begin(), c.end()));
  };
  choose_co(0);
  return out;
}

}  // namespace

TEST(LitmusMachine, AgreesWithAnAxiomaticReferenceOnStraightLineCorpusFiles) {
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(GPMX_LITMUS_DIR)) {
    if (entry.path().extension() != ".litmus") continue;
    const lt::program p = lt::parse_file(entry.path().string());
    if (!straight_line(p) || p.has_label(lt::access_label::quantum)) continue;
    const auto ops = lt::run_machine(p).outcomes;
    const std::set<lt::machine_outcome> machine(ops.begin(), ops.end());
    EXPECT_EQ(machine, axiomatic_outcomes(p)) << entry.path();
    ++compared;
  }
  EXPECT_GT(compared, 15);
}
