#include "gpmx/check/image_jobs.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <stdexcept>

namespace gpmx::check {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void write_all(int fd, const std::string& s) {
  std::size_t at = 0;
  while (at < s.size()) {
    const ssize_t w = ::write(fd, s.data() + at, s.size() - at);
    if (w <= 0) return;
    at += std::size_t(w);
  }
}

// The child: silence its output (recovery may print), run the target, send
// 'O' or 'F' and the detail, then, when the target tracked recovery's reads,
// a NUL and the reads (pool_reads.hpp's text form).
[[noreturn]] void child_main(int fd, const image_target& target,
                             const std::function<std::filesystem::path()>& prepare) {
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  std::string msg;
  std::filesystem::path dir;
  try {
    dir = prepare();
  } catch (const std::exception& e) {
    write_all(fd, std::string("Xcould not write the image: ") + e.what());
    ::_exit(0);
  }
  std::optional<pool_reads> reads;
  try {
    image_verdict v = target(dir);
    msg = v.ok ? "O" : "F";
    msg += v.detail;
    reads = std::move(v.reads);
  } catch (const std::exception& e) {
    msg = std::string("F") + "recovery or the check threw: " + e.what();
  } catch (...) {
    msg = "Frecovery or the check threw a non-standard exception";
  }
  msg.resize(std::min<std::size_t>(msg.size(), 4000));
  std::replace(msg.begin(), msg.end(), '\0', ' ');  // a NUL starts the reads
  if (reads) {
    msg.push_back('\0');
    msg += encode(*reads);
  }
  write_all(fd, msg);
  ::_exit(0);
}

}  // namespace

image_jobs::image_jobs(image_target target, unsigned jobs, double timeout_s)
    : target_(std::move(target)), jobs_(std::max(jobs, 1u)), timeout_s_(timeout_s) {}

image_jobs::~image_jobs() = default;  // each child_process kills and reaps its child

void image_jobs::start(std::uint64_t tag, const std::function<std::filesystem::path()>& prepare) {
  if (children_.size() >= jobs_) throw std::logic_error("image_jobs::start: every slot is busy");
  child_process process = child_process::start("check an image", [&](int fd) -> int { child_main(fd, target_, prepare); });
  process.set_nonblocking();
  children_.push_back({std::move(process), tag, now_s(), {}});
}

std::optional<image_jobs::finished> image_jobs::next() {
  while (!children_.empty()) {
    std::vector<pollfd> fds;
    double soonest = 1e300;
    for (const child& c : children_) {
      fds.push_back({c.process.report_fd(), POLLIN, 0});
      soonest = std::min(soonest, c.started + timeout_s_);
    }
    const int wait_ms = int(std::clamp((soonest - now_s()) * 1000.0, 0.0, 1000.0)) + 1;
    if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR)
      throw std::runtime_error(fmt::format("poll on image checks failed: {}", std::strerror(errno)));
    for (std::size_t i = 0; i < children_.size(); ++i) {
      child& c = children_[i];
      char buf[4096];
      for (;;) {
        const long n = c.process.read_some(buf, sizeof buf);
        if (n > 0) {
          c.message.append(buf, std::size_t(n));
          continue;
        }
        if (n == 0) return reap(i, false);  // the child closed its end: it has exited or is exiting
        break;                              // EAGAIN: nothing more yet
      }
      if (now_s() > c.started + timeout_s_) return reap(i, true);
    }
  }
  return std::nullopt;
}

image_jobs::finished image_jobs::reap(std::size_t index, bool timed_out) {
  child c = std::move(children_[index]);
  children_.erase(children_.begin() + std::ptrdiff_t(index));
  if (timed_out) c.process.kill();
  const child_exit end = c.process.wait();
  finished f;
  f.tag = c.tag;
  if (timed_out) {
    f.verdict = {false, fmt::format("recovery and the check did not finish within {} s", timeout_s_)};
  } else if (end.signal) {
    f.verdict = {false, fmt::format("recovery or the check died of signal {} ({})", end.signal, strsignal(end.signal))};
  } else if (c.message.empty()) {
    f.verdict = {false, "recovery or the check exited without a verdict"};
  } else if (c.message[0] == 'X') {  // not the image's fault: the check itself cannot go on
    throw std::runtime_error(c.message.substr(1));
  } else {
    std::string detail = c.message.substr(1);
    const std::size_t nul = detail.find('\0');
    if (nul != std::string::npos) {
      f.verdict.reads = decode_pool_reads(detail.substr(nul + 1));
      detail.resize(nul);
    }
    f.verdict.ok = c.message[0] == 'O';
    f.verdict.detail = std::move(detail);
  }
  return f;
}

}  // namespace gpmx::check
