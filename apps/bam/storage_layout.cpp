#include "bam/storage_layout.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::apps::bam {

namespace {

[[noreturn]] void io_failed(const std::filesystem::path& p, const char* what) {
  throw error(error_code::io, fmt::format("{}: {}: {}", p.string(), what, std::strerror(errno)));
}

struct file {
  int fd = -1;
  std::filesystem::path path;
  file(const std::filesystem::path& p, int flags) : fd(::open(p.c_str(), flags, 0644)), path(p) {
    if (fd < 0) io_failed(p, "cannot open");
  }
  ~file() { ::close(fd); }
  file(const file&) = delete;
  file& operator=(const file&) = delete;
};

// Calls piece(device, file offset, offset in data, bytes) for each run of
// `bytes` at logical `offset` of array a that is contiguous in one device
// file (one line, or many where there is one device).
template <class Piece>
void for_each_piece(const storage_layout& l, const stored_array& a, std::uint64_t offset, std::uint64_t bytes,
                    Piece&& piece) {
  if (offset > a.bytes || bytes > a.bytes - offset)
    throw error(error_code::usage, fmt::format("array '{}' holds {} bytes: no bytes {} to {}", a.name, a.bytes, offset,
                                               offset + bytes));
  if (l.devices == 1) {
    if (bytes != 0) piece(0, a.first_lba * lba_bytes + offset, 0, bytes);
    return;
  }
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t at = offset + done;
    const std::uint64_t page = at / l.line_bytes, in_page = at % l.line_bytes;
    const std::uint64_t n = std::min<std::uint64_t>(bytes - done, l.line_bytes - in_page);
    const std::uint64_t file_offset = a.first_lba * lba_bytes + (page / l.devices) * l.line_bytes + in_page;
    piece(std::uint32_t(page % l.devices), file_offset, done, n);
    done += n;
  }
}

}  // namespace

storage_layout storage_layout::plan(std::uint32_t devices, std::uint32_t line_bytes,
                                    const std::vector<std::pair<std::string, std::uint64_t>>& arrays) {
  if (devices == 0 || devices > 64) throw config_error(fmt::format("devices={} must be 1 to 64", devices));
  if (line_bytes < 512 || line_bytes > 65536 || (line_bytes & (line_bytes - 1)) != 0)
    throw config_error(fmt::format("line={} must be a power of two from 512 to 65536", line_bytes));
  storage_layout l;
  l.devices = devices;
  l.line_bytes = line_bytes;
  std::uint64_t lba = 0;
  for (const auto& [name, bytes] : arrays) {
    stored_array a{name, bytes, (bytes + line_bytes - 1) / line_bytes, lba};
    lba += (a.pages + devices - 1) / devices * (line_bytes / lba_bytes);
    l.arrays.push_back(a);
  }
  l.device_bytes = lba * lba_bytes;
  return l;
}

const stored_array& storage_layout::find(std::string_view name) const {
  for (const stored_array& a : arrays)
    if (a.name == name) return a;
  throw config_error(fmt::format("no stored array named '{}'", name));
}

std::filesystem::path storage_layout::device_path(const std::filesystem::path& dir, std::uint32_t device) const {
  return dir / fmt::format("device{}", device);
}

std::uint64_t storage_layout::total_bytes() const {
  std::uint64_t n = 0;
  for (const stored_array& a : arrays) n += a.bytes;
  return n;
}

void create_devices(const std::filesystem::path& dir, const storage_layout& l) {
  for (std::uint32_t d = 0; d < l.devices; ++d) {
    file f(l.device_path(dir, d), O_RDWR | O_CREAT | O_TRUNC);
    if (::ftruncate(f.fd, off_t(l.device_bytes)) != 0) io_failed(f.path, "cannot size");
  }
}

void write_array(const std::filesystem::path& dir, const storage_layout& l, std::string_view name, std::uint64_t offset,
                 std::span<const std::byte> data) {
  std::vector<std::unique_ptr<file>> files;
  for (std::uint32_t d = 0; d < l.devices; ++d) files.push_back(std::make_unique<file>(l.device_path(dir, d), O_RDWR));
  for_each_piece(l, l.find(name), offset, data.size(), [&](std::uint32_t d, std::uint64_t at, std::uint64_t from, std::uint64_t n) {
    for (std::uint64_t w = 0; w < n;) {
      const ssize_t r = ::pwrite(files[d]->fd, data.data() + from + w, n - w, off_t(at + w));
      if (r <= 0) io_failed(files[d]->path, "write failed");
      w += std::uint64_t(r);
    }
  });
}

void read_array(const std::filesystem::path& dir, const storage_layout& l, std::string_view name, std::uint64_t offset,
                std::span<std::byte> data) {
  std::vector<std::unique_ptr<file>> files;
  for (std::uint32_t d = 0; d < l.devices; ++d) files.push_back(std::make_unique<file>(l.device_path(dir, d), O_RDONLY));
  for_each_piece(l, l.find(name), offset, data.size(), [&](std::uint32_t d, std::uint64_t at, std::uint64_t from, std::uint64_t n) {
    for (std::uint64_t got = 0; got < n;) {
      const ssize_t r = ::pread(files[d]->fd, data.data() + from + got, n - got, off_t(at + got));
      if (r < 0) io_failed(files[d]->path, "read failed");
      if (r == 0)
        throw error(error_code::corrupt_data,
                    fmt::format("{}: ends before byte {} (array '{}')", files[d]->path.string(), at + got, name));
      got += std::uint64_t(r);
    }
  });
}

namespace {
void sync_each(const std::filesystem::path& dir, const storage_layout& l, bool drop) {
  for (std::uint32_t d = 0; d < l.devices; ++d) {
    file f(l.device_path(dir, d), O_RDONLY);
    if (::fdatasync(f.fd) != 0) io_failed(f.path, "fdatasync");
    if (drop) (void)::posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);  // advice: where ignored, reads hit memory
  }
}
}  // namespace

void sync_devices(const std::filesystem::path& dir, const storage_layout& l) { sync_each(dir, l, false); }
void settle_devices(const std::filesystem::path& dir, const storage_layout& l) { sync_each(dir, l, true); }

}  // namespace gpmx::apps::bam
