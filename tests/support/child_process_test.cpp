#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>

#include "gpmx/support/child_process.hpp"

namespace {
using gpmx::child_process;

TEST(ChildProcess, ReportsThroughThePipeAndExitsWithTheBodysStatus) {
  child_process c = child_process::start("test", [](int fd) {
    const std::uint64_t v = 42;
    return ::write(fd, &v, sizeof v) == sizeof v ? 7 : 1;
  });
  std::uint64_t got = 0;
  ASSERT_TRUE(c.read_exact(&got, sizeof got));
  EXPECT_EQ(got, 42u);
  EXPECT_FALSE(c.read_exact(&got, sizeof got));  // the child is gone: end of stream
  const gpmx::child_exit e = c.wait();
  EXPECT_TRUE(e.exited_with(7));
  EXPECT_EQ(e.signal, 0);
  EXPECT_TRUE(c.wait().exited_with(7));  // reaped once, answered again
}

TEST(ChildProcess, AThrowingBodyExitsWithStatus2) {
  child_process c = child_process::start("test", [](int) -> int { throw std::runtime_error("no"); });
  EXPECT_TRUE(c.wait().exited_with(2));
}

TEST(ChildProcess, KillEndsItWithSigkill) {
  child_process c = child_process::start("test", [](int fd) {
    const char ready = 'r';
    if (::write(fd, &ready, 1) != 1) return 1;
    for (;;) ::pause();
  });
  char ready = 0;
  ASSERT_TRUE(c.read_exact(&ready, 1));
  c.kill();
  EXPECT_TRUE(c.wait().killed_by(SIGKILL));
}

TEST(ChildProcess, NonBlockingReadsSayWhenNothingHasArrived) {
  child_process c = child_process::start("test", [](int) {
    ::pause();
    return 0;
  });
  c.set_nonblocking();
  char buf[8];
  EXPECT_EQ(c.read_some(buf, sizeof buf), -1);
}  // the destructor kills and reaps the waiting child

TEST(ChildProcess, MovesKeepOneOwner) {
  child_process a = child_process::start("test", [](int) { return 3; });
  child_process b = std::move(a);
  EXPECT_TRUE(b.wait().exited_with(3));
}

}  // namespace
