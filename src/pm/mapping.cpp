#include "mapping.hpp"

#include <libpmem.h>
#include <linux/magic.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "gpmx/exec/observer.hpp"

namespace gpmx::pm {

mapping::mapping(const std::filesystem::path& path, const std::filesystem::path& shown, durability mode)
    : path_(shown), mode_(mode) {
  std::size_t len = 0;
  int is_pmem = 0;
  void* p = pmem_map_file(path.c_str(), 0, 0, 0, &len, &is_pmem);
  if (!p)
    throw pm_error(errc::io, fmt::format("{}: cannot map: {}", shown.string(), pmem_errormsg()));
  base_ = static_cast<std::byte*>(p);
  size_ = len;
  is_pmem_ = is_pmem != 0;
  struct statfs fs {};
  in_memory_fs_ = ::statfs(path.c_str(), &fs) == 0 &&
                  (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
  if (observer* o = host_observer()) o->pool_mapped(base_, size_, shown.string());
}

mapping::~mapping() {
  if (!base_) return;
  if (observer* o = host_observer()) o->pool_unmapped(base_);
  pmem_unmap(base_, size_);
}

void mapping::persist(const void* p, std::uint64_t bytes, source_loc loc) const {
  check_inside(p, bytes);
  persisted_.fetch_add(bytes, std::memory_order_relaxed);
  if (observer* o = host_observer()) o->host_persist(p, bytes, loc);
  flush(p, bytes);
}

void mapping::persist_merged(const void* p, std::uint64_t bytes, std::uint64_t asked) const {
  check_inside(p, bytes);
  persisted_.fetch_add(asked, std::memory_order_relaxed);
  flush(p, bytes);
}

void mapping::check_inside(const void* p, std::uint64_t bytes) const {
  const auto* b = static_cast<const std::byte*>(p);
  if (b < base_ || b + bytes > base_ + size_)
    throw pm_error(errc::bad_argument,
                   fmt::format("{}: persist of {} bytes at offset {} lies outside the {}-byte mapping",
                               path_.string(), bytes, b - base_, size_));
}

void mapping::flush(const void* p, std::uint64_t bytes) const {
  const auto* b = static_cast<const std::byte*>(p);
  if (bytes == 0 || mode_ == durability::none) return;
  if ((mode_ == durability::pmem && is_pmem_) || mode_ == durability::flush) {
    pmem_persist(p, bytes);
    return;
  }
  if (pmem_msync(p, bytes) != 0)
    throw pm_error(errc::io, fmt::format("{}: msync of {} bytes at offset {} failed: {}", path_.string(),
                                         bytes, b - base_, std::strerror(errno)));
}

}  // namespace gpmx::pm
