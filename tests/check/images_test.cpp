// The image strategies: closure, bounds, counts, completeness, determinism.
#include <gtest/gtest.h>

#include <ostream>

#include "check/trace_builder.hpp"
#include "gpmx/check/images.hpp"

namespace gpmx::check {
// gtest prints the parameter in its listings: the model's name, not a byte.
inline void PrintTo(persist_model m, std::ostream* os) { *os << to_string(m); }
}  // namespace gpmx::check

namespace {
using namespace check_test;
using namespace gpmx::check;

// Two threads of one block: t0 stores a, ofence, b; t1 stores c, d unordered
// and persists e after a gpm_persist; one block-scoped handoff to t2.
gpmx::trace::trace mixed_trace() {
  trace_builder b;
  const who t0{0, 0, 0}, t1{0, 0, 1}, t2{0, 0, 2};
  b.kernel_begin();
  b.write(t0, 0, 8);
  b.ofence(t0);
  b.write(t0, 8, 8);
  const auto rel = b.prel(t0, scope::block, 0x200);
  b.write(t1, 16, 8);
  b.write(t1, 24, 16);
  b.persist(t1);
  b.write(t1, 40, 8);
  b.pacq(t2, scope::block, 0x200, rel);
  b.write(t2, 48, 8);
  return b.trace();
}

void expect_valid(const persist_order& o, const crash_state& at, const image_set& set) {
  EXPECT_EQ(set.count, set.images.size());
  for (const store_set& image : set.images) {
    EXPECT_TRUE(o.is_closed(image));
    EXPECT_TRUE(at.must.is_subset_of(image));
    EXPECT_TRUE(image.is_subset_of(at.issued));
  }
}

class ImagesAtEveryCrashPoint : public ::testing::TestWithParam<persist_model> {};

TEST_P(ImagesAtEveryCrashPoint, AreClosedAndBetweenMustAndIssued) {
  const auto t = mixed_trace();
  const auto o = order_of(t, GetParam());
  for (const crash_state& at : crash_states(o, every_n_crash_points(t, 1))) {
    for (image_strategy s : {image_strategy::minimal, image_strategy::maximal, image_strategy::drop_one,
                             image_strategy::random, image_strategy::exhaustive})
      expect_valid(o, at, make_images(o, at, {.strategy = s}));
    EXPECT_EQ(minimal_image(o, at).images.front(), at.must);
    EXPECT_EQ(maximal_image(o, at).images.front(), at.issued);
  }
}

INSTANTIATE_TEST_SUITE_P(AllModels, ImagesAtEveryCrashPoint,
                         ::testing::Values(persist_model::strict, persist_model::epoch, persist_model::sbrp,
                                           persist_model::sbrp_promoted),
                         [](const auto& param_info) {
                           const persist_model m = param_info.param;
                           return std::string(m == persist_model::sbrp_promoted ? "sbrp_promoted" : to_string(m));
                         });

TEST(Images, DropOneLeavesOutEachMayStoreWithEverythingAfterIt) {
  const auto t = mixed_trace();
  const auto o = order_of(t, persist_model::sbrp);
  const auto at = crash_state_at(o, t.events.size());
  const auto set = drop_one_images(o, at, 4096);
  ASSERT_EQ(set.count, at.may.count());
  EXPECT_TRUE(set.complete);
  EXPECT_FALSE(set.covers_all);
  const auto may = at.may.ids();
  for (std::size_t k = 0; k < may.size(); ++k) {
    EXPECT_FALSE(set.images[k].contains(may[k]));
    for (std::size_t id : at.issued.ids())
      EXPECT_EQ(set.images[k].contains(id), id != may[k] && !o.ordered(may[k], id));
  }
  EXPECT_EQ(drop_one_images(o, at, 2).count, 2u);
  EXPECT_FALSE(drop_one_images(o, at, 2).complete);
}

TEST(Images, ExhaustiveCountsTheClosedSetsAndSaysWhenItIsCut) {
  trace_builder b;
  const who t0{0, 0, 0};
  b.write(t0, 0, 8);
  b.write(t0, 8, 8);
  b.write(t0, 16, 8);
  const auto unordered = b.trace();
  b.ofence(t0);
  b.write(t0, 24, 8);
  b.ofence(t0);
  b.write(t0, 32, 8);
  const auto chained = b.trace();

  const auto o = order_of(unordered, persist_model::sbrp);
  const auto at = crash_state_at(o, unordered.events.size());
  const auto all = exhaustive_images(o, at, 100);
  EXPECT_EQ(all.count, 8u);  // three unordered stores: every subset
  EXPECT_TRUE(all.complete);
  EXPECT_TRUE(all.covers_all);
  const auto cut = exhaustive_images(o, at, 5);
  EXPECT_EQ(cut.count, 5u);
  EXPECT_FALSE(cut.complete);

  const auto oc = order_of(chained, persist_model::sbrp);
  const auto atc = crash_state_at(oc, chained.events.size());
  EXPECT_EQ(exhaustive_images(oc, atc, 100).count, 8u + 1u + 1u);  // d needs a, b, c; e needs d
  const auto oe = order_of(chained, persist_model::epoch);
  EXPECT_EQ(exhaustive_images(oe, crash_state_at(oe, chained.events.size()), 100).count, 32u);
  const auto os = order_of(chained, persist_model::strict);
  EXPECT_EQ(exhaustive_images(os, crash_state_at(os, chained.events.size()), 100).count, 1u);
}

TEST(Images, RandomImagesAreDistinctAndDeterministicInTheSeed) {
  const auto t = mixed_trace();
  const auto o = order_of(t, persist_model::epoch);
  const auto at = crash_state_at(o, t.events.size());
  const auto first = random_images(o, at, 6, 7);
  const auto again = random_images(o, at, 6, 7);
  ASSERT_EQ(first.images, again.images);
  EXPECT_EQ(first.count, 6u);
  EXPECT_TRUE(first.complete);
  for (std::size_t i = 0; i < first.images.size(); ++i)
    for (std::size_t j = i + 1; j < first.images.size(); ++j) EXPECT_NE(first.images[i], first.images[j]);
  // One may-store: at most two distinct images exist, asking for more gives up.
  trace_builder b;
  b.write({0, 0, 0}, 0, 8);
  const auto o1 = order_of(b.trace(), persist_model::sbrp);
  const auto few = random_images(o1, crash_state_at(o1, 1), 5, 1);
  EXPECT_LE(few.count, 2u);
  EXPECT_FALSE(few.complete);
}

TEST(Images, StrategyNamesRoundTrip) {
  for (image_strategy s : {image_strategy::minimal, image_strategy::maximal, image_strategy::drop_one,
                           image_strategy::random, image_strategy::exhaustive, image_strategy::pmreorder})
    EXPECT_EQ(parse_strategy(to_string(s)), s);
  EXPECT_THROW(parse_strategy("shuffle"), check_error);
}

TEST(Images, PmreorderTreatsAnyThreadsFenceAsGlobalAndDrawsUnclosedSubsetsAfterIt) {
  trace_builder b;
  const who a{0, 0, 0}, c{0, 1, 0};
  const auto first = b.write(a, 0x1000, 8);
  b.ofence(c);  // another block's fence: pmreorder takes it as a fence for everyone
  const auto second = b.write(a, 0x2000, 8);
  const auto third = b.write(a, 0x3000, 8);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  const auto images = pmreorder_images(b.trace(), o, b.trace().events.size(), 16, 1);
  EXPECT_GE(images.count, 2u);
  EXPECT_FALSE(images.covers_all);
  bool saw_third_without_second = false;
  for (const store_set& image : images.images) {
    EXPECT_TRUE(image.contains(o.nodes_of(first).first));  // before the "fence": always kept
    saw_third_without_second |= image.contains(o.nodes_of(third).first) && !image.contains(o.nodes_of(second).first);
  }
  EXPECT_TRUE(saw_third_without_second);
  EXPECT_THROW(make_images(o, crash_state_at(o, 1), {.strategy = image_strategy::pmreorder}), check_error);
}

}  // namespace
