// image_owners: every image has exactly one rank checking it in each
// round, lost ranks' images go to the ranks still there and nowhere else,
// and every rank computes the same owners from the same losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "gpmx/scale/image_owners.hpp"
#include "gpmx/support/error.hpp"

namespace {

using gpmx::scale::image_owners;
constexpr std::uint64_t made = 10000;

TEST(ImageOwners, RoundZeroDealsImagesOutAsCards) {
  const image_owners o(3);
  for (std::uint64_t i = 0; i < 30; ++i) {
    EXPECT_EQ(o.owner(i), i % 3);
    for (unsigned r = 0; r < 3; ++r) EXPECT_EQ(o.checks_now(r, i), r == i % 3);
  }
  EXPECT_EQ(o.held(1, 0, 30), 10u);
}

TEST(ImageOwners, ALostRanksImagesGoToTheOthersOnceEach) {
  image_owners o(4);
  o.lose({2});
  EXPECT_EQ(o.alive(), (std::vector<unsigned>{0, 1, 3}));
  std::map<unsigned, std::uint64_t> rechecked;
  for (std::uint64_t i = 0; i < made; ++i) {
    unsigned checkers = 0;
    for (unsigned r = 0; r < 4; ++r)
      if (o.checks_now(r, i)) {
        ++checkers;
        ++rechecked[r];
      }
    // Only rank 2's images are checked again, each by one living rank.
    EXPECT_EQ(checkers, i % 4 == 2 ? 1u : 0u) << "image " << i;
    EXPECT_NE(o.owner(i), 2u);
    if (i % 4 != 2) {
      EXPECT_EQ(o.owner(i), i % 4);
    }
  }
  EXPECT_EQ(rechecked.count(2), 0u);
  EXPECT_EQ(rechecked[0] + rechecked[1] + rechecked[3], made / 4);
  for (unsigned r : {0u, 1u, 3u}) {
    EXPECT_EQ(o.held(r, 1, made), rechecked[r]);
    EXPECT_GT(rechecked[r], made / 4 / 3 / 2) << "rank " << r << " got too few: the lost share is not spread";
  }
}

TEST(ImageOwners, LossesInLaterRoundsHandOnOnlyThatRoundsImages) {
  image_owners o(3);
  o.lose({1});
  image_owners same(3);
  same.lose({1});
  std::vector<std::uint64_t> held_by_two;
  for (std::uint64_t i = 0; i < made; ++i) {
    EXPECT_EQ(o.owner(i), same.owner(i));  // the same losses give the same owners everywhere
    if (o.checks_now(2, i)) held_by_two.push_back(i);
  }
  o.lose({2});
  EXPECT_EQ(o.alive(), std::vector<unsigned>{0});
  for (std::uint64_t i = 0; i < made; ++i) {
    const bool was_twos_recheck = std::binary_search(held_by_two.begin(), held_by_two.end(), i);
    EXPECT_EQ(o.checks_now(0, i), was_twos_recheck || i % 3 == 2) << "image " << i;
    EXPECT_EQ(o.owner(i), 0u);
  }
}

TEST(ImageOwners, RefusesToLoseEveryRankOrOneTwice) {
  image_owners o(2);
  EXPECT_THROW(o.lose({0, 1}), gpmx::error);
  EXPECT_THROW(o.lose({1, 1}), gpmx::error);
  EXPECT_THROW(o.lose({5}), gpmx::error);
  o.lose({1});
  EXPECT_THROW(o.lose({1}), gpmx::error);
  EXPECT_THROW(image_owners(0), gpmx::error);
}

}  // namespace
