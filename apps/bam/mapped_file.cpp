#include "bam/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "gpmx/support/error.hpp"

namespace gpmx::apps::bam {

mapped_file::mapped_file(const std::filesystem::path& p, bool writable) : path_(p) {
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

process_io read_process_io() {
  std::ifstream in("/proc/self/io");
  process_io io;
  std::string key;
  std::uint64_t value = 0;
  while (in >> key >> value) {
    if (key == "read_bytes:") io.read_bytes = value;
    if (key == "write_bytes:") io.write_bytes = value;
  }
  return io;
}

}  // namespace gpmx::apps::bam
