#include "file_io.hpp"

#include <climits>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace gpmx::pm {

int pwrite_all(int fd, const void* data, std::uint64_t bytes, std::uint64_t offset) {
  iovec one{const_cast<void*>(data), bytes};
  return pwritev_all(fd, {&one, 1}, offset);
}

int pwritev_all(int fd, std::span<iovec> buffers, std::uint64_t offset) {
  std::size_t first = 0;
  while (first < buffers.size()) {
    if (buffers[first].iov_len == 0) {
      ++first;
      continue;
    }
    const int count = int(std::min<std::size_t>(buffers.size() - first, IOV_MAX));
    const ssize_t n = ::pwritev(fd, buffers.data() + first, count, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    offset += std::uint64_t(n);
    // Skip what was written: whole buffers, then part of the next.
    for (std::uint64_t done = std::uint64_t(n); done > 0;) {
      iovec& v = buffers[first];
      const std::uint64_t take = std::min<std::uint64_t>(done, v.iov_len);
      v.iov_base = static_cast<char*>(v.iov_base) + take;
      v.iov_len -= take;
      done -= take;
      if (v.iov_len == 0) ++first;
    }
  }
  return 0;
}

int write_zeros(int fd, std::uint64_t from, std::uint64_t to) {
  static const std::vector<char> zeros(std::size_t(1) << 20, 0);
  for (std::uint64_t at = from; at < to;) {
    const std::uint64_t n = std::min<std::uint64_t>(zeros.size(), to - at);
    if (const int err = pwrite_all(fd, zeros.data(), n, at)) return err;
    at += n;
  }
  return 0;
}

}  // namespace gpmx::pm
