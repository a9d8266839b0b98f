// The image server: one process forked when the jobs are made, which forks
// the workers that check the images (image_workers.hpp). The checker itself
// grows large (the trace, the persist order, crash states) and keeps writing
// its memory; forking it made each fork copy its page tables and every page
// either side wrote afterwards. The server forks once, writes almost
// nothing, and its workers start from it.
#include "gpmx/check/image_jobs.hpp"

#include <malloc.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

#include "image_workers.hpp"

namespace gpmx::check {
namespace {

// The frames on both channels: image_workers.hpp.

void reply(int replies, std::uint64_t tag, const std::string& verdict) {
  if (!write_verdict_frame(replies, tag, verdict)) ::_exit(0);  // the checker is gone
}

// Takes the complete requests off the front of `in`.
template <class F>
void take_requests(std::string& in, F&& start) {
  std::size_t at = 0;
  for (;;) {
    std::uint64_t tag = 0;
    std::uint32_t length = 0;
    if (in.size() - at < sizeof tag + sizeof length) break;
    std::memcpy(&tag, in.data() + at, sizeof tag);
    std::memcpy(&length, in.data() + at + sizeof tag, sizeof length);
    if (in.size() - at - sizeof tag - sizeof length < length) break;
    start(tag, std::filesystem::path(in.substr(at + sizeof tag + sizeof length, length)));
    at += sizeof tag + sizeof length + length;
  }
  in.erase(0, at);
}

// The server's loop: hands each request to a worker, `jobs` images at most
// at once (the checker sends up to twice that, so that the next images are
// written while these are checked), relays each verdict, and ends when the
// checker closes its end (the workers die with the server: die_with). A
// worker that cannot be started is not its image's fault: the reply is 'X'
// and the reason, and the checker stops with it.
[[noreturn]] void serve(int requests, int replies, const image_target& target, unsigned jobs, double timeout_s,
                        unsigned images_per_worker) {
  // The heap came from the checker with its free chunks unmerged: merged
  // here once, or each child's first large allocation merges them, writing
  // to (so copying) pages all over the heap.
  ::malloc_trim(0);
  image_workers workers(target, timeout_s, images_per_worker, {requests, replies});
  std::deque<std::pair<std::uint64_t, std::filesystem::path>> queued;  // waiting for a free job
  std::string in;
  for (;;) {
    std::vector<pollfd> fds{{requests, POLLIN, 0}};
    workers.add_poll_fds(fds);
    if (::poll(fds.data(), fds.size(), workers.wait_ms(1000)) < 0 && errno != EINTR) ::_exit(3);
    if (fds[0].revents) {
      char buf[4096];
      const ssize_t n = ::read(requests, buf, sizeof buf);
      if (n > 0) {
        in.append(buf, std::size_t(n));
        take_requests(in, [&](std::uint64_t tag, const std::filesystem::path& dir) { queued.emplace_back(tag, dir); });
      } else if (n == 0 || errno != EINTR) {
        ::_exit(0);  // the checker is done with us (or gone)
      }
    }
    for (const auto& [tag, verdict] : workers.collect()) reply(replies, tag, verdict);
    // After collecting: a job freed there starts its next image now, not
    // when the next request or verdict wakes the loop.
    while (workers.busy() < jobs && !queued.empty()) {
      const auto [tag, dir] = std::move(queued.front());
      queued.pop_front();
      try {
        workers.start(tag, dir);
      } catch (const std::exception& e) {
        reply(replies, tag, std::string("X") + e.what());
      }
    }
  }
}

}  // namespace

image_jobs::image_jobs(image_target target, unsigned jobs, double timeout_s, unsigned images_per_worker)
    : target_(std::move(target)),
      jobs_(std::max(jobs, 1u)),
      timeout_s_(timeout_s),
      images_per_worker_(std::max(images_per_worker, 1u)) {
  // A socket pair rather than a pipe: a request sent to a server that died
  // fails (MSG_NOSIGNAL) instead of raising SIGPIPE in the checker.
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0)
    throw std::runtime_error(fmt::format("cannot create a socket pair to the image server: {}", std::strerror(errno)));
  const int read_end = ends[0];
  const int write_end = ends[1];
  try {
    server_ = child_process::start("serve image checks", [&](int replies) -> int {
      ::close(write_end);
      serve(read_end, replies, target_, jobs_, timeout_s_, images_per_worker_);
    });
  } catch (...) {
    ::close(read_end);
    ::close(write_end);
    throw;
  }
  ::close(read_end);
  requests_ = write_end;
}

image_jobs::~image_jobs() {
  if (requests_ >= 0) ::close(requests_);
  // server_'s destructor kills and reaps the server; its workers die with it.
}

void image_jobs::start(std::uint64_t tag, const std::filesystem::path& dir) {
  if (running_ >= capacity()) throw std::logic_error("image_jobs::start: every slot is busy");
  const std::string request = request_frame(tag, dir);
  if (!send_all(requests_, request.data(), request.size())) server_lost("send it an image");
  ++running_;
}

std::optional<image_jobs::finished> image_jobs::next() {
  if (running_ == 0) return std::nullopt;
  finished f;
  std::uint64_t length = 0;
  if (!server_->read_exact(&f.tag, sizeof f.tag) || !server_->read_exact(&length, sizeof length))
    server_lost("read a verdict");
  std::string wire(length, '\0');
  if (!server_->read_exact(wire.data(), length)) server_lost("read a verdict");
  --running_;
  if (wire.starts_with('X')) throw std::runtime_error(wire.substr(1));  // the server could not check it
  f.verdict = decode_verdict(wire);
  return f;
}

void image_jobs::server_lost(const char* doing) {
  server_->kill();
  const child_exit end = server_->wait();
  throw std::runtime_error(
      end.signal ? fmt::format("the image server ended by signal {} ({}) when the checker tried to {}", end.signal,
                               strsignal(end.signal), doing)
                 : fmt::format("the image server exited (status {}) when the checker tried to {}", end.status, doing));
}

}  // namespace gpmx::check
