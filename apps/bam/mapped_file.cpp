#include "bam/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::apps::bam {

mapped_file::mapped_file(const std::filesystem::path& dir, const storage_layout& l, bool writable)
    : path_(l.device_path(dir, 0)), layout_(l) {
  if (l.devices != 1) throw config_error("method=mmap maps one device file: prepare with devices=1");
  const std::filesystem::path& p = path_;
  const int fd = ::open(p.c_str(), writable ? O_RDWR : O_RDONLY);
  if (fd < 0) throw error(error_code::io, fmt::format("{}: cannot open: {}", p.string(), std::strerror(errno)));
  size_ = std::filesystem::file_size(p);
  void* m = ::mmap(nullptr, size_, writable ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
  const int saved = errno;
  ::close(fd);
  if (m == MAP_FAILED) throw error(error_code::io, fmt::format("{}: cannot map: {}", p.string(), std::strerror(saved)));
  data_ = static_cast<std::byte*>(m);
}

mapped_file::~mapped_file() { ::munmap(data_, size_); }

void mapped_file::sync() {
  if (::msync(data_, size_, MS_SYNC) != 0)
    throw error(error_code::io, fmt::format("{}: msync: {}", path_.string(), std::strerror(errno)));
}

process_io_bytes process_io_since(const std::optional<process_io_bytes>& before) {
  const auto now = process_io();
  if (!before || !now) return {};
  return {now->read - before->read, now->written - before->written};
}

}  // namespace gpmx::apps::bam
