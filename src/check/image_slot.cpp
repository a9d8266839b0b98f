#include "image_slot.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpmx/support/child_process.hpp"

namespace gpmx::check {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t page = 4096;

[[noreturn]] void refused(const char* what, const fs::path& path, int err) {
  throw std::runtime_error("cannot " + std::string(what) + " the image file '" + path.string() +
                           "': " + std::strerror(err));
}

}  // namespace

image_slot::image_slot(fs::path dir) : dir_(std::move(dir)) {}

image_slot::~image_slot() {
  for (auto& [relative, m] : files_) unmap(m);
}

void image_slot::clear() {
  for (auto& [relative, m] : files_) unmap(m);
  files_.clear();
  fs::remove_all(dir_);
}

void image_slot::unmap(mapped& m) {
  if (m.data) ::munmap(m.data, m.size);
  m = {};
}

const fs::path& image_slot::hold(std::span<const slot_file> files) {
  fs::create_directories(dir_);
  remove_strays(files);
  for (const slot_file& f : files) {
    const fs::path path = dir_ / f.relative;
    mapped& m = files_[f.relative];
    if (!unchanged(path, m, f.bytes.size())) {
      write_whole(path, f.bytes, m);
      continue;
    }
    // Only the pages that differ are written: in the mapping, which is the
    // file's own page cache, so the next reader sees them at once.
    for (std::size_t at = 0; at < m.size; at += page) {
      const std::size_t n = std::min(page, m.size - at);
      if (std::memcmp(m.data + at, f.bytes.data() + at, n) == 0) continue;
      std::memcpy(m.data + at, f.bytes.data() + at, n);
      ++counts_.pages_copied;
    }
  }
  return dir_;
}

// Everything in the directory that is neither a wanted file nor a directory
// above one: made by recovery (a new file, a lock, a renamed pool).
void image_slot::remove_strays(std::span<const slot_file> files) {
  std::set<fs::path> wanted;
  std::set<fs::path> above;
  for (const slot_file& f : files) {
    wanted.insert(f.relative);
    for (fs::path p = f.relative.parent_path(); !p.empty(); p = p.parent_path()) above.insert(p);
  }
  std::vector<fs::path> strays;
  for (auto it = fs::recursive_directory_iterator(dir_); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path relative = it->path().lexically_relative(dir_);
    const fs::file_type type = it->symlink_status().type();
    if (type == fs::file_type::directory && above.contains(relative)) continue;
    if (type == fs::file_type::regular && wanted.contains(relative)) continue;
    strays.push_back(it->path());
    if (type == fs::file_type::directory) it.disable_recursion_pending();
  }
  for (const fs::path& p : strays) {
    fs::remove_all(p);
    ++counts_.entries_removed;
  }
}

// The file is the one this slot wrote and mapped: same inode, size and mode.
bool image_slot::unchanged(const fs::path& path, const mapped& m, std::size_t size) const {
  if (!m.known || m.size != size) return false;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return false;
  return S_ISREG(st.st_mode) && st.st_dev == m.device && st.st_ino == m.inode && st.st_mode == m.mode &&
         std::size_t(st.st_size) == size;
}

void image_slot::write_whole(const fs::path& path, std::span<const std::byte> bytes, mapped& m) {
  unmap(m);
  fs::remove_all(path);  // whatever recovery left there: a new inode, not its file truncated
  fs::create_directories(path.parent_path());
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) refused("create", path, errno);
  struct stat st {};
  if (!write_all(fd, bytes.data(), bytes.size()) || ::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    refused("write", path, err);
  }
  void* data = nullptr;
  if (!bytes.empty()) {
    data = ::mmap(nullptr, bytes.size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (data == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      refused("map", path, err);
    }
  }
  ::close(fd);
  m = {true, static_cast<std::byte*>(data), bytes.size(), st.st_dev, st.st_ino, st.st_mode};
  ++counts_.files_written;
}

}  // namespace gpmx::check
