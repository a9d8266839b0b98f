#pragma once
// The crash tests' common step: run work in a forked child that reports
// each completed step over a pipe, let it get `wait_for` steps past `start`,
// wait a random moment more, kill it with SIGKILL wherever it is, and return
// the last step it reported.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <random>

#include "gpmx/support/child_process.hpp"

namespace gpmx::test {

struct kill_result {
  std::uint64_t last_reported;
  bool killed;  // false: the child ended on its own (a test failure)
};

// body(report) runs in the child; it calls report(n) after completing step n.
template <class Body>
kill_result run_and_kill(std::mt19937_64& rng, std::uint64_t start, std::uint64_t wait_for,
                         unsigned max_delay_us, Body&& body) {
  child_process child = child_process::start("run a crash test's work", [&](int report_fd) {
    auto report = [report_fd](std::uint64_t step) {
      if (::write(report_fd, &step, sizeof step) != sizeof step) ::_exit(3);
    };
    body(report);
    return 0;
  });
  std::uint64_t last = start, got = 0;
  while (last < start + wait_for && child.read_exact(&got, sizeof got)) last = got;
  if (max_delay_us && (rng() & 1)) ::usleep(useconds_t(rng() % max_delay_us));
  child.kill();
  const child_exit end = child.wait();
  while (child.read_exact(&got, sizeof got)) last = got;  // reported before dying
  return {last, end.killed_by(SIGKILL)};
}

}  // namespace gpmx::test
