#include "gpmx/support/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "gpmx/support/error.hpp"
#include "gpmx/support/interrupt_cleanup.hpp"

namespace gpmx {
namespace {

child_exit exit_of(int status);

[[noreturn]] void fail(std::string_view what, std::string_view purpose, int err) {
  throw error(error_code::io, "cannot " + std::string(what) + " to " + std::string(purpose) + ": " + std::strerror(err));
}

}  // namespace

void die_with(pid_t parent) {
  // The kernel sends SIGKILL when the parent ends, however it ends. If it
  // ended before prctl ran, this process was already re-parented: end now.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(2);
  // The parent's interrupt handler and registry are not the child's.
  interrupt_cleanup::forget_in_child();
}

child_process child_process::start(std::string_view purpose, const std::function<int(int report_fd)>& body) {
  int fds[2];
  if (::pipe(fds) != 0) fail("create a pipe", purpose, errno);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    fail("fork a child", purpose, err);
  }
  if (pid == 0) {
    ::close(fds[0]);
    die_with(parent);
    int status = 2;
    try {
      status = body(fds[1]);
    } catch (...) {
    }
    ::_exit(status);  // no destructors or atexit handlers of the parent's state
  }
  ::close(fds[1]);
  interrupt_cleanup::add_child(pid);
  return child_process(pid, fds[0]);
}

child_process::child_process(child_process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), fd_(std::exchange(other.fd_, -1)), reaped_(other.reaped_),
      exit_(other.exit_) {}

child_process& child_process::operator=(child_process&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    fd_ = std::exchange(other.fd_, -1);
    reaped_ = other.reaped_;
    exit_ = other.exit_;
  }
  return *this;
}

child_process::~child_process() { release(); }

void child_process::release() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (pid_ > 0 && !reaped_) {
    kill();
    wait();
  }
  pid_ = -1;
}

void child_process::set_nonblocking() { ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_NONBLOCK); }

long child_process::read_some(void* buf, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(fd_, buf, n);
    if (r < 0 && errno == EINTR) continue;
    return long(r);
  }
}

bool child_process::read_exact(void* buf, std::size_t n) { return read_all(fd_, buf, n); }

void child_process::kill() {
  if (pid_ > 0 && !reaped_) ::kill(pid_, SIGKILL);
}

child_exit child_process::wait() {
  if (reaped_ || pid_ <= 0) return exit_;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  interrupt_cleanup::remove_child(pid_);
  exit_ = exit_of(status);
  return exit_;
}

namespace {
child_exit exit_of(int status) {
  if (WIFSIGNALED(status)) return {-1, WTERMSIG(status)};
  return {WEXITSTATUS(status), 0};
}

// Moves all n bytes with `op` (::read or ::write), retrying interrupted calls.
template <class Byte, class Op>
bool move_all(int fd, Byte* at, std::size_t n, Op op) {
  while (n > 0) {
    const ssize_t r = op(fd, at, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    at += r;
    n -= std::size_t(r);
  }
  return true;
}
}  // namespace

bool write_all(int fd, const void* data, std::size_t n) {
  return move_all(fd, static_cast<const char*>(data), n, ::write);
}

bool read_all(int fd, void* data, std::size_t n) { return move_all(fd, static_cast<char*>(data), n, ::read); }

bool send_all(int socket, const void* data, std::size_t n) {
  return move_all(socket, static_cast<const char*>(data), n,
                  [](int s, const char* at, std::size_t left) { return ::send(s, at, left, MSG_NOSIGNAL); });
}

child_exit run_shell(const std::string& command) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) fail("fork a child", "run '" + command + "'", errno);
  if (pid == 0) {
    die_with(parent);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);  // as the shell reports a command it cannot run
  }
  interrupt_cleanup::add_child(pid);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  interrupt_cleanup::remove_child(pid);
  return exit_of(status);
}

}  // namespace gpmx
