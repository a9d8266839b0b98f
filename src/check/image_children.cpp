#include "image_children.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <fmt/format.h>

namespace gpmx::check {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}


// The child: silence its output (recovery may print), run the target, send
// its verdict.
[[noreturn]] void child_main(int fd, const image_target& target, const std::filesystem::path& dir) {
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  image_verdict v;
  try {
    v = target(dir);
  } catch (const std::exception& e) {
    v = {false, std::string("recovery or the check threw: ") + e.what()};
  } catch (...) {
    v = {false, "recovery or the check threw a non-standard exception"};
  }
  const std::string wire = encode_verdict(v);
  (void)write_all(fd, wire.data(), wire.size());  // false: the server is gone, nobody to tell
  ::_exit(0);
}

}  // namespace

std::string encode_verdict(const image_verdict& v) {
  std::string msg = v.ok ? "O" : "F";
  msg += v.detail;
  msg.resize(std::min<std::size_t>(msg.size(), 4000));
  std::replace(msg.begin() + 1, msg.end(), '\0', ' ');  // a NUL starts the reads
  if (v.reads) {
    msg.push_back('\0');
    msg += encode(*v.reads);
  }
  return msg;
}

image_verdict decode_verdict(const std::string& wire) {
  if (wire.empty()) return {false, "recovery or the check exited without a verdict"};
  image_verdict v;
  v.ok = wire[0] == 'O';
  v.detail = wire.substr(1);
  const std::size_t nul = v.detail.find('\0');
  if (nul != std::string::npos) {
    v.reads = decode_pool_reads(v.detail.substr(nul + 1));
    v.detail.resize(nul);
  }
  return v;
}

image_children::image_children(const image_target& target, double timeout_s, std::vector<int> close_in_child)
    : target_(target), timeout_s_(timeout_s), close_in_child_(std::move(close_in_child)) {}

void image_children::start(std::uint64_t tag, const std::filesystem::path& dir) {
  child_process process = child_process::start("check an image", [&](int fd) -> int {
    for (const int own : close_in_child_) ::close(own);
    child_main(fd, target_, dir);
  });
  process.set_nonblocking();
  children_.push_back({std::move(process), tag, now_s(), {}});
}

void image_children::add_poll_fds(std::vector<pollfd>& fds) const {
  for (const child& c : children_) fds.push_back({c.process.report_fd(), POLLIN, 0});
}

int image_children::wait_ms(int cap_ms) const {
  double soonest = 1e300;
  for (const child& c : children_) soonest = std::min(soonest, c.started + timeout_s_);
  return int(std::clamp((soonest - now_s()) * 1000.0, 0.0, double(cap_ms))) + 1;
}

std::vector<std::pair<std::uint64_t, std::string>> image_children::collect() {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  for (std::size_t i = 0; i < children_.size();) {
    child& c = children_[i];
    bool closed = false;
    char buf[4096];
    for (;;) {
      const long n = c.process.read_some(buf, sizeof buf);
      if (n > 0) {
        c.message.append(buf, std::size_t(n));
        continue;
      }
      closed = n == 0;  // the child closed its end: it has exited or is exiting
      break;            // otherwise EAGAIN: nothing more yet
    }
    const bool timed_out = !closed && now_s() > c.started + timeout_s_;
    if (!closed && !timed_out) {
      ++i;
      continue;
    }
    out.emplace_back(c.tag, reap(c, timed_out));
    children_.erase(children_.begin() + std::ptrdiff_t(i));
  }
  return out;
}

std::string image_children::reap(child& c, bool timed_out) {
  if (timed_out) c.process.kill();
  const child_exit end = c.process.wait();
  if (timed_out) return fmt::format("Frecovery and the check did not finish within {} s", timeout_s_);
  if (end.signal)
    return fmt::format("Frecovery or the check died of signal {} ({})", end.signal, strsignal(end.signal));
  return std::move(c.message);  // empty: decode_verdict says there was no verdict
}

}  // namespace gpmx::check
