#pragma once
// The crash tests' common step: run work in a forked child that reports
// each completed step over a pipe, let it get `wait_for` steps past `start`,
// wait a random moment more, kill it with SIGKILL wherever it is, and return
// the last step it reported.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <random>

namespace gpmx::test {

struct kill_result {
  std::uint64_t last_reported;
  bool killed;  // false: the child ended on its own (a test failure)
};

// body(report) runs in the child; it calls report(n) after completing step n.
template <class Body>
kill_result run_and_kill(std::mt19937_64& rng, std::uint64_t start, std::uint64_t wait_for,
                         unsigned max_delay_us, Body&& body) {
  int fds[2];
  if (::pipe(fds) != 0) return {start, false};
  const pid_t pid = ::fork();
  if (pid < 0) return {start, false};
  if (pid == 0) {
    ::close(fds[0]);
    auto report = [&](std::uint64_t step) {
      if (::write(fds[1], &step, sizeof step) != sizeof step) ::_exit(3);
    };
    try {
      body(report);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::uint64_t last = start, got = 0;
  while (last < start + wait_for && ::read(fds[0], &got, sizeof got) == sizeof got) last = got;
  if (max_delay_us && (rng() & 1)) ::usleep(useconds_t(rng() % max_delay_us));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  while (::read(fds[0], &got, sizeof got) == sizeof got) last = got;  // reported before dying
  ::close(fds[0]);
  return {last, WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL};
}

}  // namespace gpmx::test
