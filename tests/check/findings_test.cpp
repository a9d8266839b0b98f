// findings: what shares of a check found travels as bytes and merges into
// what one process checking every image would have found.
#include <gtest/gtest.h>

#include "gpmx/check/findings.hpp"
#include "gpmx/check/model.hpp"

namespace {

using namespace gpmx;
using check::cause_findings;
using check::findings;

cause_findings cause(const std::string& key, std::uint64_t first, std::uint64_t smallest, std::size_t lost,
                     std::uint64_t position, std::size_t images, double found_s) {
  cause_findings c;
  c.key = key;
  c.first_image = first;
  c.smallest_image = smallest;
  c.failure.cause = "cause " + key;
  c.failure.verdict = "verdict of image " + std::to_string(smallest);
  c.failure.lost_count = lost;
  c.failure.position = position;
  c.failure.images = images;
  c.failure.found_after_s = found_s;
  c.failure.found_after_images = std::size_t(found_s * 100);
  c.failure.why = {"why " + key};
  c.smallest = {smallest, lost};
  return c;
}

findings share(std::size_t checked, std::size_t failed, std::vector<cause_findings> causes) {
  findings f;
  f.events = 100;
  f.granule_stores = 70;
  f.images_made = 40;
  f.images_checked = checked;
  f.failed_images = failed;
  f.causes = std::move(causes);
  return f;
}

TEST(Findings, TravelAsBytesUnchanged) {
  const findings f = share(20, 3, {cause("a", 4, 9, 2, 50, 2, 0.25), cause("b", 1, 1, 1, 40, 1, 0.5)});
  const findings back = check::decode_findings(check::encode_findings(f), "a test");
  EXPECT_EQ(back.images_checked, 20u);
  EXPECT_EQ(back.failed_images, 3u);
  ASSERT_EQ(back.causes.size(), 2u);
  EXPECT_EQ(back.causes[0].key, "a");
  EXPECT_EQ(back.causes[0].failure.verdict, "verdict of image 9");
  EXPECT_EQ(back.causes[0].failure.why, std::vector<std::string>{"why a"});
  EXPECT_EQ(back.causes[0].failure.found_after_s, 0.25);
  EXPECT_EQ(back.causes[1].smallest, (std::vector<std::uint64_t>{1, 1}));
}

TEST(Findings, FromAnotherFormatOrCutShortAreRefused) {
  std::string bytes = check::encode_findings(share(1, 0, {}));
  std::string other = bytes;
  other[0] = char(99);  // the format number
  EXPECT_THROW((void)check::decode_findings(other, "rank 1"), check::check_error);
  bytes.pop_back();
  EXPECT_THROW((void)check::decode_findings(bytes, "rank 1"), gpmx::error);
}

TEST(Findings, MergeCountsAndTheSmallestImageOfEachCause) {
  // "a" fails in both shares: its first image is the earliest made, its
  // smallest the fewest lost stores, ties broken by position then index.
  const findings zero = share(20, 3, {cause("a", 6, 6, 3, 50, 2, 0.9), cause("b", 2, 2, 1, 10, 1, 0.1)});
  const findings one = share(20, 4, {cause("a", 1, 11, 3, 50, 3, 0.2), cause("c", 9, 9, 5, 70, 4, 0.3)});
  const findings m = check::merge_findings({zero, one});
  EXPECT_EQ(m.images_checked, 40u);
  EXPECT_EQ(m.failed_images, 7u);
  ASSERT_EQ(m.causes.size(), 3u);
  EXPECT_EQ(m.causes[0].key, "a");  // by first image: a (1), b (2), c (9)
  EXPECT_EQ(m.causes[1].key, "b");
  EXPECT_EQ(m.causes[2].key, "c");
  const cause_findings& a = m.causes[0];
  EXPECT_EQ(a.first_image, 1u);
  EXPECT_EQ(a.failure.images, 5u);
  EXPECT_EQ(a.smallest_image, 6u);  // equal lost and position: the smaller index
  EXPECT_EQ(a.failure.verdict, "verdict of image 6");
  EXPECT_EQ(a.failure.found_after_s, 0.2);  // the earliest in time, from the other share
  EXPECT_EQ(a.failure.found_after_images, 20u);
  // The same shares in the other order merge the same.
  const findings swapped = check::merge_findings({one, zero});
  EXPECT_EQ(swapped.causes[0].smallest_image, 6u);
  EXPECT_EQ(swapped.causes[0].failure.verdict, "verdict of image 6");
}

TEST(Findings, FromDifferentChecksDoNotMerge) {
  findings other = share(1, 0, {});
  other.images_made = 41;
  EXPECT_THROW((void)check::merge_findings({share(1, 0, {}), other}), check::check_error);
}

}  // namespace
