#pragma once
// An exclusive lock on a file, held by one process at a time: an open file
// description lock (fcntl F_OFD_SETLK), so the kernel frees it when the
// holder dies however it dies (SIGKILL included) and a stale lock file never
// blocks anyone. The holder writes its pid into the file only so that a
// refused process can name it; the lock itself is the kernel's.
//
// A forked child shares the parent's open file description and with it the
// lock: work a holder runs in a child stays covered while the child lives.
#include <filesystem>
#include <string>
#include <string_view>

#include "gpmx/support/error.hpp"

namespace gpmx {

// What a process that finds the lock held gets: error_code::busy, the lock
// file and the holder's pid (0 when the file does not say).
class lock_busy_error : public error {
 public:
  lock_busy_error(const std::string& what, long holder) : error(error_code::busy, what), holder_(holder) {}
  long holder() const { return holder_; }

 private:
  long holder_;
};

class exclusive_lock {
 public:
  // Takes the lock on `path` (creating the file), without waiting. Throws
  // lock_busy_error naming `what` ("workload directory D"), the file and the
  // holder's pid when another process holds it; gpmx::error (io) when the
  // file cannot be opened or locked.
  exclusive_lock(const std::filesystem::path& path, std::string_view what);
  ~exclusive_lock();  // releases the lock (the file stays: removing it would race a new holder)
  exclusive_lock(exclusive_lock&& other) noexcept;
  exclusive_lock& operator=(exclusive_lock&&) = delete;
  exclusive_lock(const exclusive_lock&) = delete;
  exclusive_lock& operator=(const exclusive_lock&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace gpmx
