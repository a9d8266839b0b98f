// Crash images written as files: each image replaces its pool file's
// contents, synced (durable_log.hpp says what an image is).
#include "gpmx/sim/crash_image_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fmt/std.h>

#include "gpmx/support/error.hpp"

namespace gpmx::sim {
namespace fs = std::filesystem;

static void write_whole_file(const fs::path& path, const std::vector<std::byte>& bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw error(error_code::io, fmt::format("{}: cannot open to write a crash image: {}", path, std::strerror(errno)));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      throw error(error_code::io, fmt::format("{}: writing a crash image failed after {} of {} bytes: {}", path, done,
                                              bytes.size(), std::strerror(e)));
    }
    done += std::size_t(n);
  }
  const bool synced = ::fdatasync(fd) == 0;
  const int e = errno;
  ::close(fd);
  if (!synced) throw error(error_code::io, fmt::format("{}: syncing a crash image failed: {}", path, std::strerror(e)));
}

written_images write_images(const std::vector<durable_log::file_image>& images) {
  written_images n;
  for (const durable_log::file_image& f : images) {
    std::error_code ec;
    if (!fs::exists(f.path, ec)) continue;
    if (!f.exists) {
      if (!fs::remove(f.path, ec) && ec)
        throw error(error_code::io, fmt::format("{}: cannot remove (it did not exist at the crash): {}", f.path, ec.message()));
      ++n.removed;
      continue;
    }
    write_whole_file(f.path, f.bytes);
    ++n.written;
  }
  return n;
}

}  // namespace gpmx::sim
