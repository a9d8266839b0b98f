// One process per workload directory, and children that die with their
// parent: a second process is refused (exit 3, naming the holder's pid)
// without touching files; a SIGKILLed holder's lock is free; a SIGTERM to
// gpmx alone leaves no child and no scratch directory.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include "gpmx/support/child_process.hpp"
#include "gpmx/support/exclusive_lock.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "reliability/gpmx_process.hpp"

namespace {
using namespace gpmx;
namespace fs = std::filesystem;

const std::vector<std::string> small_kvs = {"-p", "sets=256", "-p", "batch=64", "-p", "batches=2", "--quiet"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(DirectoryLock, SecondProcessIsRefusedNamingTheHolder) {
  scratch_dir d;
  ASSERT_EQ(test::run_gpmx(with({"run", "gpkvs"}, small_kvs), d.path()).status, 0);
  const auto before = test::snapshot(d / "gpmx-data" / "gpkvs");
  {
    const exclusive_lock held(d / "gpmx-data" / "gpkvs.lock", "test");  // this process is the holder
    for (const char* cmd : {"run", "recover", "verify"}) {
      const auto r = test::run_gpmx(with({cmd, "gpkvs"}, cmd == std::string("run") ? small_kvs : std::vector<std::string>{}),
                                    d.path());
      EXPECT_EQ(r.status, 3) << cmd << ": " << r.output;
      EXPECT_NE(r.output.find("pid " + std::to_string(::getpid())), std::string::npos) << r.output;
      EXPECT_NE(r.output.find("in use"), std::string::npos) << r.output;
    }
    EXPECT_TRUE(before == test::snapshot(d / "gpmx-data" / "gpkvs"));
  }
  EXPECT_EQ(test::run_gpmx({"verify", "gpkvs"}, d.path()).status, 0);  // released with the holder
}

TEST(DirectoryLock, ADeadHoldersLockIsFree) {
  scratch_dir d;
  fs::create_directories(d / "gpmx-data");
  child_process holder = child_process::start("hold the lock", [&](int fd) -> int {
    const exclusive_lock held(d / "gpmx-data" / "gpkvs.lock", "test");
    const char ready = 1;
    if (::write(fd, &ready, 1) != 1) return 1;
    ::pause();  // until SIGKILLed
    return 0;
  });
  char ready = 0;
  ASSERT_TRUE(holder.read_exact(&ready, 1));
  EXPECT_THROW(exclusive_lock(d / "gpmx-data" / "gpkvs.lock", "test"), lock_busy_error);
  holder.kill();
  (void)holder.wait();
  EXPECT_EQ(test::run_gpmx(with({"run", "gpkvs"}, small_kvs), d.path()).status, 0);
}

// Waits (bounded, polling) until pred holds; false if it never did.
template <class Pred>
bool eventually(Pred&& pred) {
  for (int i = 0; i < 3000; ++i) {
    if (pred()) return true;
    ::usleep(10000);
  }
  return false;
}

TEST(Signals, SigtermToTheParentAloneLeavesNoCrashAfterChild) {
  scratch_dir d;
  // A run long enough to be caught with its child alive: the default sizes.
  const pid_t gpmx_pid = test::start_gpmx({"run", "gpkvs", "--crash-after", "1000000000000", "--quiet"}, d.path(),
                                          d / "out.txt");
  std::vector<pid_t> kids;
  ASSERT_TRUE(eventually([&] { return !(kids = test::children_of(gpmx_pid)).empty(); }));
  ::kill(gpmx_pid, SIGTERM);
  EXPECT_EQ(test::wait_status(gpmx_pid), -1);  // ended by the signal
  for (const pid_t k : kids) EXPECT_TRUE(eventually([&] { return test::process_ended(k); })) << "child " << k << " outlived gpmx";
}

TEST(Signals, SigtermDuringACheckRemovesItsImagesAndChildren) {
  scratch_dir d;
  const pid_t gpmx_pid = test::start_gpmx({"check", "gpkvs", "--strategy", "random", "--images", "64", "--quiet"},
                                          d.path(), d / "out.txt");
  const fs::path images = d / "gpmx-data" / "check" / "gpkvs" / "images";
  std::vector<pid_t> kids;
  ASSERT_TRUE(eventually([&] { return fs::exists(images) && !(kids = test::children_of(gpmx_pid)).empty(); }))
      << test::read_text(d / "out.txt");
  ::kill(gpmx_pid, SIGTERM);
  EXPECT_EQ(test::wait_status(gpmx_pid), -1);
  EXPECT_FALSE(fs::exists(images));
  for (const pid_t k : kids) EXPECT_TRUE(eventually([&] { return test::process_ended(k); })) << "child " << k << " outlived gpmx";
}

}  // namespace
