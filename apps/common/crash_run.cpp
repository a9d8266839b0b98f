#include "common/crash_run.hpp"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <cerrno>
#include <cstring>
#include <optional>
#include <exception>
#include <fmt/format.h>

#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/child_process.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::apps {
namespace {

// Messages from child to parent: a tag byte, then a count or a text.
constexpr char tag_killed = 'K', tag_done = 'D', tag_error = 'E', tag_config = 'C';
int report_fd = -1;


void send_count(char tag, std::uint64_t n) {
  char msg[9];
  msg[0] = tag;
  std::memcpy(msg + 1, &n, 8);
  (void)write_all(report_fd, msg, sizeof msg);
}

// Runs in the child on the thread that reached the limit (and any after it):
// tell the watchdog once, then wait for its SIGKILL.
void wait_for_kill(std::uint64_t point) {
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) send_count(tag_killed, point);
  for (;;) ::pause();
}

// The same, for a kill that comes later: tell the watchdog once, go on.
void tell_and_go_on(std::uint64_t point) {
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) send_count(tag_killed, point);
}

[[noreturn]] void child_main(int fd, std::uint64_t crash_after, bool go_on, const std::function<void()>& work) {
  report_fd = fd;
  crash_trigger::arm(crash_after, go_on ? &tell_and_go_on : &wait_for_kill);
  try {
    work();
  } catch (const config_error& e) {
    const std::string what = std::string(1, tag_config) + std::string(e.what()).substr(0, 4000);
    (void)write_all(fd, what.data(), what.size());
    ::_exit(2);
  } catch (const std::exception& e) {
    const std::string what = std::string(1, tag_error) + std::string(e.what()).substr(0, 4000);
    (void)write_all(fd, what.data(), what.size());
    ::_exit(3);
  } catch (...) {
    const char what[] = "Eunknown exception";
    (void)write_all(fd, what, sizeof what - 1);
    ::_exit(3);
  }
  send_count(tag_done, crash_trigger::count());
  ::_exit(0);
}

// Waits until the child's pipe has something to read (true) or the deadline
// passed (false); no deadline: true at once.
bool readable_before(const child_process& child, std::optional<std::chrono::steady_clock::time_point> deadline) {
  if (!deadline) return true;
  for (;;) {
    // ppoll: a delayed kill may be a fraction of a millisecond away.
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(*deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const timespec wait{time_t(left.count() / 1000000000), long(left.count() % 1000000000)};
    pollfd p{child.report_fd(), POLLIN, 0};
    const int n = ::ppoll(&p, 1, &wait, nullptr);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return true;  // let the read report the failure
  }
}

}  // namespace

child_outcome run_in_child(std::uint64_t crash_after, const std::function<void()>& work,
                           std::uint64_t kill_after_ms, std::uint64_t kill_delay_us) {
  const bool delayed = kill_delay_us > 0 && crash_after > 0;
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (kill_after_ms > 0) deadline = start + std::chrono::milliseconds(kill_after_ms);
  child_process child =
      child_process::start("run the work", [&](int fd) -> int { child_main(fd, crash_after, delayed, work); });
  child_outcome out;
  std::string msg;
  char buf[4096];
  for (;;) {
    if (!readable_before(child, deadline)) {
      child.kill();  // time is up: wherever the child is, it stops here
      out.killed = out.timed_out = true;
      break;
    }
    const long r = child.read_some(buf, sizeof buf);
    if (r <= 0) break;
    msg.append(buf, std::size_t(r));
    if (msg[0] == tag_killed && msg.size() >= 9) {
      // The crash: no clean-up runs in the child. A delayed kill waits
      // while the child goes on; if it ends first (its pipe closes), the
      // signal finds a zombie and changes nothing.
      if (delayed) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kill_delay_us);
        while (readable_before(child, until)) {
          const long more = child.read_some(buf, sizeof buf);
          if (more <= 0) break;
          msg.append(buf, std::size_t(more));
        }
      }
      child.kill();
      break;
    }
  }
  const child_exit end = child.wait();
  out.seconds = seconds_since(start);
  if (!msg.empty() && (msg[0] == tag_killed || msg[0] == tag_done) && msg.size() >= 9)
    std::memcpy(&out.points, msg.data() + 1, 8);
  const bool told = !msg.empty() && msg[0] == tag_killed;
  if (delayed && told && end.signal == 0) {
    // It exited by itself before the kill came: ran to the end, or failed.
    if (!end.exited_with(0)) {
      out.failed = true;
      out.error = fmt::format("the child exited with status {} after its crash point", end.status);
    }
  } else if (out.killed || told) {
    out.killed = true;
  } else if (!msg.empty() && (msg[0] == tag_error || msg[0] == tag_config)) {
    out.failed = true;
    out.bad_config = msg[0] == tag_config;
    out.error = msg.substr(1);
  } else if (!(end.exited_with(0) && !msg.empty() && msg[0] == tag_done)) {
    out.failed = true;
    out.error = end.signal ? fmt::format("the child died of signal {}", end.signal)
                           : fmt::format("the child exited with status {}", end.status);
  }
  return out;
}

}  // namespace gpmx::apps
