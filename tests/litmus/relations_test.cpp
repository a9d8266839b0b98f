#include <gtest/gtest.h>

#include <vector>

#include "gpmx/litmus/enumerate.hpp"
#include "gpmx/litmus/parser.hpp"
#include "gpmx/litmus/relations.hpp"

namespace lt = gpmx::litmus;

namespace {

std::vector<lt::execution> all_executions(const std::string& text) {
  const lt::program p = lt::parse_program(text, "t.litmus");
  std::vector<lt::execution> out;
  (void)lt::enumerate_sc(p, {}, [&](const lt::execution& x) { out.push_back(x); });
  return out;
}

// The execution whose events, in T order, are the given (thread, po) pairs.
const lt::execution* find_order(const std::vector<lt::execution>& xs, const std::vector<std::pair<int, int>>& order) {
  for (const auto& x : xs) {
    if (x.events.size() != order.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < order.size(); ++i)
      same = same && x.events[i].thread == order[i].first && x.events[i].po == order[i].second;
    if (same) return &x;
  }
  return nullptr;
}

}  // namespace

TEST(LitmusRelations, ClosureAndCompose) {
  lt::relation r(4);
  r.set(0, 1);
  r.set(1, 2);
  r.set(2, 3);
  const lt::relation c = lt::transitive_closure(r);
  EXPECT_TRUE(c.has(0, 3));
  EXPECT_FALSE(c.has(3, 0));
  EXPECT_FALSE(c.has(0, 0));
  EXPECT_TRUE(lt::reflexive_transitive_closure(r).has(2, 2));
  const lt::relation two = lt::compose(r, r);
  EXPECT_TRUE(two.has(0, 2));
  EXPECT_FALSE(two.has(0, 1));
  EXPECT_TRUE((r | two).has(0, 1));
  EXPECT_TRUE((r & two).empty());
}

TEST(LitmusRelations, MessagePassingPairedFlag) {
  // T0: W x (data), W f (paired); T1: R f (paired), R x (data).
  const auto xs = all_executions(R"(init { x = 0; f = 0; }
    thread T0 { store.data x, 1; store.paired f, 1; }
    thread T1 { r = load.paired f; s = load.data x; })");
  // Sleep sets: one execution per Mazurkiewicz trace (conflict orders on x and f).
  EXPECT_EQ(xs.size(), 3U);
  const lt::execution* x = find_order(xs, {{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  ASSERT_NE(x, nullptr);
  const lt::execution_relations r = lt::compute_relations(*x);
  EXPECT_TRUE(r.po.has(0, 1));
  EXPECT_TRUE(r.po.has(2, 3));
  EXPECT_FALSE(r.po.has(1, 2));
  EXPECT_TRUE(r.conflict.has(0, 3) && r.conflict.has(3, 0));
  EXPECT_TRUE(r.conflict.has(1, 2));
  EXPECT_FALSE(r.conflict.has(0, 1));
  EXPECT_TRUE(r.co.has(1, 2));
  EXPECT_FALSE(r.co.has(2, 1));
  EXPECT_TRUE(r.so0.has(1, 2));
  EXPECT_TRUE(r.so1.has(1, 2));
  EXPECT_TRUE(r.hb1.has(0, 3));  // W x -po-> W f -so1-> R f -po-> R x
  EXPECT_TRUE(r.hb0.has(0, 3));
  EXPECT_TRUE(r.hb_hrf_direct.has(0, 3));
  EXPECT_TRUE(r.hb_hrf_indirect.has(0, 3));

  // When the flag is read before it is written, nothing orders x.
  const lt::execution* y = find_order(xs, {{1, 0}, {1, 1}, {0, 0}, {0, 1}});
  ASSERT_NE(y, nullptr);
  const lt::execution_relations ry = lt::compute_relations(*y);
  EXPECT_TRUE(ry.co.has(0, 3));  // R f before W f: conflict order runs T1 -> T0
  EXPECT_TRUE(ry.so1.empty());
  EXPECT_FALSE(ry.hb1.has(1, 2) || ry.hb1.has(2, 1));
}

TEST(LitmusRelations, UnpairedGivesSo0ButNotSo1) {
  const auto xs = all_executions(R"(init { x = 0; f = 0; }
    thread T0 { store.data x, 1; store.unpaired f, 1; }
    thread T1 { r = load.unpaired f; s = load.data x; })");
  const lt::execution* x = find_order(xs, {{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  ASSERT_NE(x, nullptr);
  const lt::execution_relations r = lt::compute_relations(*x);
  EXPECT_TRUE(r.so0.has(1, 2));
  EXPECT_TRUE(r.so1.empty());
  EXPECT_TRUE(r.hb0.has(0, 3));
  EXPECT_FALSE(r.hb1.has(0, 3));
}

TEST(LitmusRelations, ScopedSynchronization) {
  // Chain through a local scope on cu 0, then the global scope to cu 1.
  const auto xs = all_executions(R"(init { x = 0; f = 0; g = 0; }
    thread T0 cu 0 { store.data x, 1; store.paired.local f, 1; }
    thread T1 cu 0 { a = load.paired.local f await a == 1; store.paired.global g, 1; }
    thread T2 cu 1 { b = load.paired.global g await b == 1; r = load.data x; })");
  ASSERT_EQ(xs.size(), 1U);
  const lt::execution_relations r = lt::compute_relations(xs[0]);
  EXPECT_TRUE(r.so_hrf.has(1, 2));
  EXPECT_TRUE(r.so_hrf.has(3, 4));
  EXPECT_TRUE(r.hb_hrf_indirect.has(0, 5));
  EXPECT_FALSE(r.hb_hrf_direct.has(0, 5));  // two scope instances on one chain
  EXPECT_TRUE(r.hb_hrf_direct.has(0, 3));   // the local instance alone
  EXPECT_TRUE(r.hb_hrf_direct.has(2, 5));   // the global instance alone

  // A local release and acquire on different compute units do not synchronize.
  const auto ys = all_executions(R"(init { x = 0; f = 0; }
    thread T0 cu 0 { store.paired.local f, 1; }
    thread T1 cu 1 { a = load.paired.local f await a == 1; })");
  ASSERT_EQ(ys.size(), 1U);
  const lt::execution_relations q = lt::compute_relations(ys[0]);
  EXPECT_TRUE(q.so0.has(0, 1));
  EXPECT_FALSE(q.so_hrf.has(0, 1));
}

TEST(LitmusEvents, UsedFollowsAddressDataAndControlDependencies) {
  // One thread, so one execution; events in program order.
  const auto xs = all_executions(R"(init { a = 0; b[2] = 0; c = 0; d = 0; e = 0; o = 0; }
    thread T {
      r = load.data a;          # 0: feeds an address
      s = load.data b[r + 1];   # 1: feeds a stored value (through arithmetic)
      t = s * 2;
      store.data o, t;          # 2
      u = load.data c;          # 3: feeds a branch
      if (u == 0) { store.data o, 1; }  # 4
      v = load.data d;          # 5: never used
      w = rmw.add.data e, 1;    # 6: used by its own await
      z = load.data e await z == 1;     # 7
    })");
  ASSERT_EQ(xs.size(), 1U);
  const auto& ev = xs[0].events;
  ASSERT_EQ(ev.size(), 8U);
  EXPECT_TRUE(ev[0].used);
  EXPECT_EQ(ev[1].addr, 2);  // b[1]
  EXPECT_TRUE(ev[1].used);
  EXPECT_FALSE(ev[2].used);  // stores load nothing
  EXPECT_TRUE(ev[3].used);
  EXPECT_FALSE(ev[5].used);
  EXPECT_FALSE(ev[6].used);
  EXPECT_TRUE(ev[7].used);
  EXPECT_EQ(ev[6].rval, 0);
  EXPECT_EQ(ev[6].wval, 1);
  EXPECT_EQ(ev[7].rval, 1);
}
