#include "gpmx/storage/block_device.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "gpmx/storage/storage_error.hpp"

namespace gpmx::storage {

namespace {
[[noreturn]] void fail(error_code code, const std::filesystem::path& p, const std::string& what) {
  throw storage_error(code, fmt::format("storage device {}: {}", p.string(), what));
}
}  // namespace

block_device::block_device(const std::filesystem::path& path, std::string name, device_options o)
    : path_(path), name_(std::move(name)), lba_bytes_(o.lba_bytes) {
  if (lba_bytes_ != 512 && lba_bytes_ != 4096)
    fail(error_code::config, path, fmt::format("logical block size {} is not 512 or 4096", lba_bytes_));
  if (o.direct) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_DIRECT);
    direct_ = fd_ >= 0;
  }
  if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);  // tmpfs and others refuse O_DIRECT
  if (fd_ < 0) fail(error_code::io, path, fmt::format("cannot open: {}", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    fail(error_code::io, path, fmt::format("cannot stat: {}", std::strerror(e)));
  }
  std::uint64_t bytes = std::uint64_t(st.st_size);
  if (S_ISBLK(st.st_mode)) {
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    bytes = end > 0 ? std::uint64_t(end) : 0;
  }
  if (bytes == 0 || bytes % lba_bytes_ != 0) {
    ::close(fd_);
    fail(error_code::config, path,
         fmt::format("size {} bytes is not a positive multiple of the {}-byte block", bytes, lba_bytes_));
  }
  blocks_ = bytes / lba_bytes_;
}

block_device::~block_device() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace gpmx::storage
