#include "image_workers.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <fmt/format.h>

#include "gpmx/support/error.hpp"

namespace gpmx::check {
namespace {

constexpr std::size_t verdict_head = 2 * sizeof(std::uint64_t);

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

image_verdict run_target(const image_target& target, const std::filesystem::path& dir) {
  try {
    return target(dir);
  } catch (const std::exception& e) {
    return {false, std::string("recovery or the check threw: ") + e.what()};
  } catch (...) {
    return {false, "recovery or the check threw a non-standard exception"};
  }
}

// The worker: silence its output (recovery may print), then check images
// until the server closes the requests, an image fails or the quota is met.
[[noreturn]] void worker_main(int requests, int verdicts, const image_target& target, unsigned quota) {
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, 1);
    ::dup2(null, 2);
  }
  for (unsigned checked = 0; checked < quota; ++checked) {
    std::uint64_t tag = 0;
    std::uint32_t length = 0;
    if (!read_all(requests, &tag, sizeof tag) || !read_all(requests, &length, sizeof length)) break;
    std::string path(length, '\0');
    if (!read_all(requests, path.data(), length)) break;
    const image_verdict v = run_target(target, path);
    // A failed write: the server is gone, nobody to tell.
    if (!write_verdict_frame(verdicts, tag, encode_verdict(v)) || !v.ok) break;
  }
  ::_exit(0);
}

// The server's rule for when a worker ends by itself, the same as worker_main's.
bool ends_worker(const std::string& wire) { return wire.empty() || wire[0] != 'O'; }

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

std::string request_frame(std::uint64_t tag, const std::filesystem::path& dir) {
  const std::string& path = dir.native();
  const auto length = std::uint32_t(path.size());
  std::string frame(sizeof tag + sizeof length, '\0');
  std::memcpy(frame.data(), &tag, sizeof tag);
  std::memcpy(frame.data() + sizeof tag, &length, sizeof length);
  return frame + path;
}

bool write_verdict_frame(int fd, std::uint64_t tag, const std::string& wire) {
  const std::uint64_t length = wire.size();
  return write_all(fd, &tag, sizeof tag) && write_all(fd, &length, sizeof length) &&
         write_all(fd, wire.data(), wire.size());
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

// Kept in a std::list: never moved, so it closes its socket once.
struct image_workers::worker {
  worker(child_process p, int r) : process(std::move(p)), requests(r) {}
  worker(const worker&) = delete;
  worker& operator=(const worker&) = delete;
  ~worker() { ::close(requests); }

  child_process process;  // its report pipe carries the verdicts
  int requests = -1;      // our end of the socket carrying requests
  bool busy = false;      // checking the image `tag`
  bool ending = false;    // takes no more images: it exits by itself
  std::uint64_t tag = 0;
  double started = 0;
  unsigned checked = 0;
  std::string in;  // verdict bytes read so far
};

image_workers::image_workers(const image_target& target, double timeout_s, unsigned images_per_worker,
                             std::vector<int> close_in_child)
    : target_(target),
      timeout_s_(timeout_s),
      images_per_worker_(std::max(images_per_worker, 1u)),
      close_in_child_(std::move(close_in_child)) {}

image_workers::~image_workers() = default;  // each worker is killed and reaped

std::size_t image_workers::busy() const {
  return std::size_t(std::count_if(workers_.begin(), workers_.end(), [](const worker& w) { return w.busy; }));
}

image_workers::worker& image_workers::fork_worker() {
  // A socket rather than a pipe: a request to a worker that died fails
  // (MSG_NOSIGNAL) instead of raising SIGPIPE in the server.
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0)
    throw error(error_code::io, fmt::format("cannot create a socket pair to an image worker: {}", std::strerror(errno)));
  std::vector<int> close_there = close_in_child_;
  close_there.push_back(ends[0]);
  for (const worker& w : workers_) {  // the other workers' channels are not this one's
    close_there.push_back(w.requests);
    close_there.push_back(w.process.report_fd());
  }
  const int theirs = ends[1];
  try {
    child_process process = child_process::start("check images", [&](int report) -> int {
      for (const int own : close_there) ::close(own);
      worker_main(theirs, report, target_, images_per_worker_);
    });
    ::close(theirs);
    process.set_nonblocking();
    ++forked_;
    return workers_.emplace_back(std::move(process), ends[0]);  // owns ends[0] from here
  } catch (...) {
    ::close(ends[0]);
    ::close(ends[1]);
    throw;
  }
}

bool image_workers::send_request(worker& w, std::uint64_t tag, const std::filesystem::path& dir) {
  const std::string frame = request_frame(tag, dir);
  if (!send_all(w.requests, frame.data(), frame.size())) return false;
  w.busy = true;
  w.tag = tag;
  w.started = now_s();
  return true;
}

void image_workers::start(std::uint64_t tag, const std::filesystem::path& dir) {
  auto idle = std::find_if(workers_.begin(), workers_.end(), [](const worker& w) { return !w.busy && !w.ending; });
  if (idle != workers_.end()) {
    if (send_request(*idle, tag, dir)) return;
    idle->ending = true;  // it died between images: collect() reaps it
  }
  worker& fresh = fork_worker();
  if (!send_request(fresh, tag, dir))
    throw error(error_code::io, fmt::format("cannot send an image to a new image worker: {}", std::strerror(errno)));
}

void image_workers::add_poll_fds(std::vector<pollfd>& fds) const {
  for (const worker& w : workers_) fds.push_back({w.process.report_fd(), POLLIN, 0});
}

int image_workers::wait_ms(int cap_ms) const {
  double soonest = 1e300;
  for (const worker& w : workers_)
    if (w.busy) soonest = std::min(soonest, w.started + timeout_s_);
  return int(std::clamp((soonest - now_s()) * 1000.0, 0.0, double(cap_ms))) + 1;
}

std::vector<std::pair<std::uint64_t, std::string>> image_workers::collect() {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  for (auto it = workers_.begin(); it != workers_.end();) {
    worker& w = *it;
    bool closed = false;
    char buf[4096];
    for (;;) {
      const long n = w.process.read_some(buf, sizeof buf);
      if (n > 0) {
        w.in.append(buf, std::size_t(n));
        continue;
      }
      closed = n == 0;  // the worker closed its end: it has exited or is exiting
      break;            // otherwise EAGAIN: nothing more yet
    }
    std::uint64_t length = 0;
    if (w.busy && w.in.size() >= verdict_head &&
        (std::memcpy(&length, w.in.data() + sizeof(std::uint64_t), sizeof length),
         w.in.size() - verdict_head >= length)) {
      std::string wire = w.in.substr(verdict_head, length);
      w.in.erase(0, verdict_head + length);
      w.busy = false;
      w.ending = w.ending || ends_worker(wire) || ++w.checked >= images_per_worker_;
      out.emplace_back(w.tag, std::move(wire));
    }
    const bool timed_out = w.busy && !closed && now_s() > w.started + timeout_s_;
    if (!closed && !timed_out) {
      ++it;
      continue;
    }
    if (w.busy) {
      out.emplace_back(w.tag, end_of_busy(w, timed_out));
    } else {
      w.process.wait();  // it ended between images, as it should have
    }
    it = workers_.erase(it);
  }
  return out;
}

std::string image_workers::end_of_busy(worker& w, bool timed_out) {
  if (timed_out) w.process.kill();
  const child_exit end = w.process.wait();
  if (timed_out) return fmt::format("Frecovery and the check did not finish within {} s", timeout_s_);
  if (end.signal)
    return fmt::format("Frecovery or the check died of signal {} ({})", end.signal, strsignal(end.signal));
  return {};  // exited mid-image: decode_verdict says there was no verdict
}

}  // namespace gpmx::check
