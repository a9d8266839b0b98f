// image_jobs: images checked in workers of one server process; verdicts,
// deaths, hangs and the server's own death come back as the checker needs,
// and a worker never checks an image after a failed one or past its quota.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "check/image_workers.hpp"
#include "gpmx/check/image_jobs.hpp"

namespace {

using gpmx::check::image_jobs;
using gpmx::check::image_verdict;
namespace fs = std::filesystem;

// The "image" is its directory's name: it says what the target does.
image_verdict by_name(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.starts_with("good")) return {true, "consistent " + name};
  if (name.starts_with("bad")) return {false, "inconsistent " + name};
  if (name.starts_with("throw")) throw std::runtime_error("recovery failed on " + name);
  // SIGKILL: a death no sanitizer's handler turns into an exit.
  if (name.starts_with("die")) ::kill(::getpid(), SIGKILL);
  if (name.starts_with("hang")) std::this_thread::sleep_for(std::chrono::seconds(60));
  if (name.starts_with("kill-server")) ::kill(::getppid(), SIGKILL);
  if (name.starts_with("reads")) {
    image_verdict v{false, "read two granules"};
    v.reads = gpmx::check::pool_reads{{{"pool.gpm", {0, 64}}}, true, "", "recovery"};
    return v;
  }
  return {false, "unknown image " + name};
}

std::map<std::uint64_t, image_verdict> run_all(image_jobs& jobs, const std::vector<std::string>& names) {
  std::map<std::uint64_t, image_verdict> out;
  std::size_t next = 0;
  while (next < names.size() || jobs.running() > 0) {
    while (next < names.size() && jobs.running() < jobs.capacity()) {
      jobs.start(next, fs::path("/nonexistent") / names[next]);
      ++next;
    }
    auto f = jobs.next();
    EXPECT_TRUE(f.has_value());
    if (!f) break;
    EXPECT_FALSE(out.contains(f->tag)) << "tag " << f->tag << " came back twice";
    out[f->tag] = std::move(f->verdict);
  }
  return out;
}

// Images per worker: 1 (a fresh process each) and 8 (workers reused).
class ImageJobsPerWorker : public ::testing::TestWithParam<unsigned> {};

TEST_P(ImageJobsPerWorker, DeathsThrowsAndHangsFailTheirImageOnly) {
  image_jobs jobs(by_name, 2, 0.5, GetParam());
  const auto verdicts = run_all(jobs, {"good-a", "die", "throw", "hang", "good-b"});
  ASSERT_EQ(verdicts.size(), 5u);
  EXPECT_TRUE(verdicts.at(0).ok);
  EXPECT_FALSE(verdicts.at(1).ok);
  EXPECT_NE(verdicts.at(1).detail.find("died of signal 9"), std::string::npos) << verdicts.at(1).detail;
  EXPECT_FALSE(verdicts.at(2).ok);
  EXPECT_NE(verdicts.at(2).detail.find("threw: recovery failed on throw"), std::string::npos) << verdicts.at(2).detail;
  EXPECT_FALSE(verdicts.at(3).ok);
  EXPECT_NE(verdicts.at(3).detail.find("did not finish within 0.5 s"), std::string::npos) << verdicts.at(3).detail;
  EXPECT_TRUE(verdicts.at(4).ok);
}

TEST_P(ImageJobsPerWorker, EachImageGetsItsOwnVerdictOnce) {
  image_jobs jobs(by_name, 2, 30, GetParam());
  std::vector<std::string> names;
  for (int i = 0; i < 60; ++i) names.push_back((i % 7 == 0 ? "bad-" : "good-") + std::to_string(i));
  const auto verdicts = run_all(jobs, names);
  ASSERT_EQ(verdicts.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(verdicts.at(i).ok, names[i].starts_with("good")) << names[i];
    EXPECT_NE(verdicts.at(i).detail.find(names[i]), std::string::npos) << verdicts.at(i).detail;
  }
  EXPECT_FALSE(jobs.next().has_value());
}

INSTANTIATE_TEST_SUITE_P(FreshOrReused, ImageJobsPerWorker, ::testing::Values(1u, 8u));

// How many images this process has checked, its own included: a worker
// starts from the server's count, which stays 0.
unsigned images_in_this_process = 0;

// "bad-*" fail, anything else passes; the detail says how many images this
// process has checked.
image_verdict counting(const fs::path& dir) {
  const std::string name = dir.filename().string();
  ++images_in_this_process;
  if (name.starts_with("die")) ::kill(::getpid(), SIGKILL);
  return {!name.starts_with("bad"), std::to_string(images_in_this_process)};
}

// One job: the images go to one worker at a time, in order, so the counts
// show which images shared a process.
std::vector<unsigned> counts_of(unsigned per_worker, const std::vector<std::string>& names) {
  image_jobs jobs(counting, 1, 30, per_worker);
  const auto verdicts = run_all(jobs, names);
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& detail = verdicts.at(i).detail;  // a death's detail is the signal, not a count
    out.push_back(detail.find_first_not_of("0123456789") == std::string::npos ? unsigned(std::stoul(detail)) : 0);
  }
  return out;
}

TEST(ImageJobs, AWorkerChecksItsQuotaThenANewOneStarts) {
  EXPECT_EQ(counts_of(3, {"a", "b", "c", "d", "e", "f", "g"}), (std::vector<unsigned>{1, 2, 3, 1, 2, 3, 1}));
  EXPECT_EQ(counts_of(1, {"a", "b", "c"}), (std::vector<unsigned>{1, 1, 1}));
}

TEST(ImageJobs, NoImageIsCheckedInAProcessAfterAFailedOrDeadOne) {
  // The image after "bad" or "die" starts a fresh worker (count 1); "die"
  // itself reports the signal (0 here).
  EXPECT_EQ(counts_of(8, {"a", "b", "bad", "c", "d", "die", "e", "bad", "bad", "f"}),
            (std::vector<unsigned>{1, 2, 3, 1, 2, 0, 1, 2, 1, 1}));
}

TEST(ImageJobs, ReadsComeBackWithTheVerdict) {
  image_jobs jobs(by_name, 1, 30);
  const auto verdicts = run_all(jobs, {"reads"});
  ASSERT_EQ(verdicts.size(), 1u);
  const image_verdict& v = verdicts.at(0);
  EXPECT_EQ(v.detail, "read two granules");
  ASSERT_TRUE(v.reads.has_value());
  ASSERT_EQ(v.reads->files.size(), 1u);
  EXPECT_EQ(v.reads->files[0].path, "pool.gpm");
  EXPECT_EQ(v.reads->files[0].offsets, (std::vector<std::uint64_t>{0, 64}));
}

TEST(ImageJobs, MoreThanCapacityIsRefused) {
  image_jobs jobs(by_name, 1, 30);
  for (unsigned i = 0; i < jobs.capacity(); ++i) jobs.start(i, "/nonexistent/good");
  EXPECT_THROW(jobs.start(99, "/nonexistent/good"), std::logic_error);
  for (unsigned i = 0; i < jobs.capacity(); ++i) EXPECT_TRUE(jobs.next().has_value());
}

TEST(ImageJobs, TheServersDeathIsAnErrorThatSaysSo) {
  image_jobs jobs(by_name, 1, 30);
  jobs.start(0, "/nonexistent/kill-server");
  try {
    (void)jobs.next();
    FAIL() << "next() returned although the server was killed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("image server ended by signal 9"), std::string::npos) << e.what();
  }
}

TEST(ImageVerdictWire, NulsInTheDetailDoNotStartTheReadsAndLongDetailsAreCut) {
  image_verdict v{false, std::string("a\0b", 3) + std::string(5000, 'x')};
  const image_verdict back = gpmx::check::decode_verdict(gpmx::check::encode_verdict(v));
  EXPECT_FALSE(back.ok);
  EXPECT_FALSE(back.reads.has_value());
  EXPECT_EQ(back.detail.substr(0, 3), "a b");
  EXPECT_EQ(back.detail.size(), 3999u);  // 4000 on the wire with the verdict letter
  EXPECT_EQ(gpmx::check::decode_verdict("").detail, "recovery or the check exited without a verdict");
}

}  // namespace
