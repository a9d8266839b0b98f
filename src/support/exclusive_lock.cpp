#include "gpmx/support/exclusive_lock.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace gpmx {
namespace {

[[noreturn]] void io_fail(std::string_view what, const std::filesystem::path& path, int err) {
  throw error(error_code::io, std::string(what) + " " + path.string() + ": " + std::strerror(err));
}

// The pid the holder wrote, or 0 when the file holds none (a holder between
// taking the lock and writing its pid).
long recorded_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  return n > 0 ? std::strtol(buf, nullptr, 10) : 0;
}

struct flock whole_file(short type) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 0;  // to the end of the file, however long
  return l;
}

}  // namespace

exclusive_lock::exclusive_lock(const std::filesystem::path& path, std::string_view what) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) io_fail("cannot open the lock file", path, errno);
  struct flock l = whole_file(F_WRLCK);
  if (::fcntl(fd_, F_OFD_SETLK, &l) != 0) {
    const int err = errno;
    const long holder = recorded_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    if (err != EAGAIN && err != EACCES) io_fail("cannot lock", path, err);
    throw lock_busy_error(std::string(what) + " is in use by another gpmx process" +
                              (holder > 0 ? " (pid " + std::to_string(holder) + ")" : std::string()) +
                              ", which holds " + path.string() + "; wait for it to end",
                          holder);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    io_fail("cannot write the pid into the lock file", path, err);
  }
}

exclusive_lock::exclusive_lock(exclusive_lock&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

exclusive_lock::~exclusive_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the description frees the lock
}

}  // namespace gpmx
