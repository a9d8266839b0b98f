// Option values that used to wrap, be ignored or make the checker lie are
// refused with exit status 2 and a message naming the option and the value;
// exit statuses follow docs/cli.md's rule in every command.
#include <gtest/gtest.h>

#include "gpmx/support/scratch_dir.hpp"
#include "reliability/gpmx_process.hpp"

namespace {
using namespace gpmx;

void expect_usage_error(const std::vector<std::string>& args, const std::vector<std::string>& expected) {
  scratch_dir d;
  const auto r = test::run_gpmx(args, d.path());
  EXPECT_EQ(r.status, 2) << r.output;
  for (const std::string& word : expected) EXPECT_NE(r.output.find(word), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(d / "gpmx-data" / "gpkvs")) << "a refused command wrote data";
}

TEST(Arguments, NegativeNumbersAreRefused) {
  expect_usage_error({"run", "gpkvs", "--crash-after", "-5"}, {"--crash-after", "-5", "negative"});
  expect_usage_error({"check", "gpkvs", "--seed", "-1"}, {"--seed", "-1", "negative"});
  expect_usage_error({"check", "gpkvs", "--every", "-3"}, {"--every", "-3", "negative"});
  expect_usage_error({"check", "gpkvs", "--images", "-2"}, {"--images", "-2", "negative"});
}

TEST(Arguments, NumbersPast64BitsAreRefused) {
  expect_usage_error({"run", "gpkvs", "-p", "sets=18446744073709551616"}, {"sets=18446744073709551616", "2^64-1"});
  expect_usage_error({"run", "gpkvs", "--crash-after", "99999999999999999999999"}, {"--crash-after", "2^64-1"});
}

TEST(Arguments, CheckTimeoutMustBePositiveAndFinite) {
  for (const char* t : {"0", "-1", "nan", "inf"}) expect_usage_error({"check", "gpkvs", "--timeout", t}, {"--timeout", t});
}

TEST(Arguments, UnknownSubcommandIsNamed) {
  expect_usage_error({"frobnicate"}, {"unknown subcommand 'frobnicate'"});
  expect_usage_error({"bench", "frobnicate"}, {"unknown subcommand 'bench frobnicate'", "kvs"});
}

// One rule for every command (docs/cli.md): a value the user gave that
// cannot be used is status 2, work that cannot be done (a file that cannot
// be read) status 3.
TEST(Arguments, DemoSizesOfZeroAreBadArguments) {
  expect_usage_error({"demo", "--kernels", "--elements", "0"}, {"--elements"});
  expect_usage_error({"demo", "--sets", "0"}, {"--sets"});
}

TEST(Arguments, AnUnreadableLitmusFileIsAnIoErrorAsForATrace) {
  scratch_dir d;
  const auto litmus = test::run_gpmx({"litmus", "missing.litmus"}, d.path());
  EXPECT_EQ(litmus.status, 3) << litmus.output;
  EXPECT_NE(litmus.output.find("missing.litmus"), std::string::npos) << litmus.output;
  const auto check = test::run_gpmx({"check", "--trace", "missing.trace", "--verify", "true"}, d.path());
  EXPECT_EQ(check.status, 3) << check.output;
  EXPECT_NE(check.output.find("missing.trace"), std::string::npos) << check.output;
}

TEST(Arguments, ConflictingCheckOptionsAreRefused) {
  expect_usage_error({"check", "--trace", "t.trace", "--bug", "no-log-fence"}, {"--trace", "--bug"});
  expect_usage_error({"check", "gpkvs", "--verify", "true"}, {"--verify", "--trace"});
  expect_usage_error({"check", "gpkvs", "--at", "5", "--every", "3"}, {"--at", "--every"});
  expect_usage_error({"check", "--list-bugs", "gpkvs"}, {"--list-bugs"});
}

TEST(Arguments, CrashPositionInTheSetUpIsRefused) {
  expect_usage_error({"check", "gpkvs", "--at", "0", "--quiet"}, {"--at 0", "first kernel launch"});
}

TEST(Arguments, MaxImagesIsAnUpperBound) {
  scratch_dir d;
  const auto r = test::run_gpmx({"check", "gpkvs", "--max-images", "3", "--json", "--quiet"}, d.path());
  ASSERT_EQ(r.status, 0) << r.output;
  const auto at = r.output.find("\"images\": ");
  ASSERT_NE(at, std::string::npos) << r.output;
  EXPECT_LE(std::stoul(r.output.substr(at + 10)), 3u) << r.output;
}

}  // namespace
