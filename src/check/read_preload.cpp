// Preloaded (LD_PRELOAD) into an outside recovery command that the checker
// runs on an image again (gpmx check --trace ... --verify CMD): tracks the
// reads of every file under $GPMX_IMAGE_DIR the command maps shared, and at
// exit writes them (pool_reads' text form) to $GPMX_READS_OUT. A command
// that never exits normally, or a statically linked one, writes nothing.
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "page_read_tracker.hpp"

namespace {

using gpmx::check::page_read_tracker;

// Plain arrays, constant-initialized: the constructor below may run before
// this file's dynamic initializers, which would empty a std::string.
page_read_tracker* tracker = nullptr;
char image_dir[PATH_MAX];
char out_path[PATH_MAX];
bool mapped_any = false;

using mmap_fn = void* (*)(void*, std::size_t, int, int, int, off_t);
using munmap_fn = int (*)(void*, std::size_t);

mmap_fn real_mmap() {
  static const auto f = reinterpret_cast<mmap_fn>(::dlsym(RTLD_NEXT, "mmap"));
  return f;
}
munmap_fn real_munmap() {
  static const auto f = reinterpret_cast<munmap_fn>(::dlsym(RTLD_NEXT, "munmap"));
  return f;
}

// Appended: a command of several processes (recover, then verify) leaves
// one block each, which decode_pool_reads merges. A process that mapped
// no image file (the shell around the command) writes nothing.
void write_reads() {
  if (!tracker || !mapped_any) return;
  const std::string text = encode(tracker->finish());
  const int fd = ::open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t w = ::write(fd, text.data() + at, text.size() - at);
    if (w <= 0) break;
    at += std::size_t(w);
  }
  ::close(fd);
}

__attribute__((constructor)) void start_tracking() {
  const char* dir = std::getenv("GPMX_IMAGE_DIR");
  const char* out = std::getenv("GPMX_READS_OUT");
  if (!dir || !out || !*dir || !*out) return;
  if (!::realpath(dir, image_dir)) std::snprintf(image_dir, sizeof image_dir, "%s", dir);
  std::snprintf(out_path, sizeof out_path, "%s", out);
  // Only this process: the command's own children (a shell's commands)
  // start their own tracking and append their own reads.
  std::uint32_t granularity = 8;
  if (const char* g = std::getenv("GPMX_READS_GRANULARITY")) granularity = std::uint32_t(std::strtoul(g, nullptr, 10));
  try {
    tracker = new page_read_tracker(granularity, std::size_t(1) << 20);
  } catch (const std::exception&) {
    return;  // not available: nothing is written, and the checker says reads are not known
  }
  std::atexit(write_reads);
}

// The file an fd names, if it lies under the image directory.
bool under_image(int fd, std::string& path) {
  char link[64], target[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  path.assign(target, std::size_t(n));
  const std::size_t len = std::strlen(image_dir);
  return len > 0 && path.size() > len && path.compare(0, len, image_dir) == 0 && path[len] == '/';
}

}  // namespace

extern "C" {

void* mmap(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  void* p = real_mmap()(addr, length, prot, flags, fd, offset);
  std::string path;
  if (tracker && p != MAP_FAILED && fd >= 0 && (flags & MAP_SHARED) && under_image(fd, path)) {
    tracker->add(p, length, path, std::uint64_t(offset));
    mapped_any = true;
  }
  return p;
}

void* mmap64(void* addr, std::size_t length, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, length, prot, flags, fd, offset);
}

int munmap(void* addr, std::size_t length) {
  if (tracker) tracker->remove(addr);
  return real_munmap()(addr, length);
}

}  // extern "C"
