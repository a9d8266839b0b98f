// Crash positions and the must/may sets at each.
#include <gtest/gtest.h>

#include "check/trace_builder.hpp"
#include "gpmx/check/crash_point.hpp"

namespace {
using namespace check_test;
using namespace gpmx::check;

constexpr who t0{0, 0, 0}, t1{0, 0, 1};

TEST(CrashPoints, AreJustBeforeEachOrderingOperationAndAtTheEnd) {
  trace_builder b;
  b.kernel_begin();
  b.write(t0, 0, 8);
  const auto of = b.ofence(t0);
  b.write(t0, 8, 8);
  const auto ke = b.kernel_end();
  EXPECT_EQ(ordering_crash_points(b.trace()), (std::vector<std::uint64_t>{of, ke, ke + 1}));
  EXPECT_EQ(every_n_crash_points(b.trace(), 2), (std::vector<std::uint64_t>{2, 4, 5}));
  EXPECT_THROW(every_n_crash_points(b.trace(), 0), check_error);
}

TEST(CrashPoints, MustHoldsWhatADurabilityPointBeforeTheCrashMadeDurable) {
  trace_builder b;
  b.kernel_begin();
  const auto a = b.write(t0, 0, 8);
  const auto df = b.dfence(t0);
  const auto c = b.write(t1, 8, 8);
  const auto ke = b.kernel_end();
  const auto o = order_of(b.trace(), persist_model::sbrp);
  const std::size_t an = o.nodes_of(a).first, cn = o.nodes_of(c).first;
  const auto before_df = crash_state_at(o, df);
  EXPECT_TRUE(before_df.may.contains(an));
  EXPECT_TRUE(before_df.must.empty());
  EXPECT_EQ(before_df.issued.count(), 1u);
  const auto after_df = crash_state_at(o, df + 1);
  EXPECT_TRUE(after_df.must.contains(an));
  EXPECT_FALSE(after_df.issued.contains(cn));
  const auto before_ke = crash_state_at(o, ke);
  EXPECT_TRUE(before_ke.may.contains(cn));
  const auto end = crash_state_at(o, ke + 1);
  EXPECT_EQ(end.must.count(), 2u);
  EXPECT_TRUE(end.may.empty());
  EXPECT_THROW(crash_state_at(o, ke + 2), check_error);
}

TEST(CrashPoints, MustIsClosedUnderPmo) {
  trace_builder b;
  const auto a = b.write(t0, 0, 8);   // never fenced by t0
  const auto c = b.write(t1, 0, 8);   // coherence-after a
  const auto p = b.persist(t1);
  const auto o = order_of(b.trace(), persist_model::epoch);
  const auto s = crash_state_at(o, p + 1);
  EXPECT_TRUE(s.must.contains(o.nodes_of(c).first));
  EXPECT_TRUE(s.must.contains(o.nodes_of(a).first));
}

TEST(CrashPoints, ManyStatesInOneSweepEqualOneByOne) {
  trace_builder b;
  b.kernel_begin();
  for (std::uint32_t k = 0; k < 6; ++k) {
    b.write({0, 0, k % 2}, 8 * k, 8);
    if (k % 3 == 2) b.persist({0, 0, k % 2});
  }
  b.kernel_end();
  const auto o = order_of(b.trace(), persist_model::sbrp);
  std::vector<std::uint64_t> positions = ordering_crash_points(b.trace());
  std::reverse(positions.begin(), positions.end());
  const auto states = crash_states(o, positions);
  for (std::size_t k = 0; k < positions.size(); ++k) {
    const auto one = crash_state_at(o, positions[k]);
    EXPECT_EQ(states[k].must, one.must);
    EXPECT_EQ(states[k].issued, one.issued);
    EXPECT_EQ(states[k].position, positions[k]);
  }
}

TEST(CrashPoints, UnderStrictEverythingIssuedIsDurableAndAPrefix) {
  trace_builder b;
  for (std::uint32_t k = 0; k < 5; ++k) b.write({0, k, 0}, 8 * k, 8);
  const auto o = order_of(b.trace(), persist_model::strict);
  for (std::uint64_t p = 0; p <= b.trace().events.size(); ++p) {
    const auto s = crash_state_at(o, p);
    EXPECT_EQ(s.must, s.issued);
    EXPECT_TRUE(s.may.empty());
    EXPECT_EQ(s.issued.count(), p);
    EXPECT_TRUE(o.is_closed(s.issued));
  }
}

}  // namespace
