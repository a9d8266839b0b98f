#pragma once
// For tests of pools in a file on a device (group commit's shared syncs,
// the persist journal): whether a directory is in memory, and a kernel whose
// every thread stores one word and waits at gpm_persist.
#include <linux/magic.h>
#include <sys/vfs.h>

#include <cstdint>
#include <filesystem>

#include "gpmx/pm/view.hpp"

namespace gpmx::test {

inline bool in_memory(const std::filesystem::path& dir) {
  struct statfs s {};
  return ::statfs(dir.c_str(), &s) == 0 && (s.f_type == TMPFS_MAGIC || s.f_type == RAMFS_MAGIC);
}

// Thread i stores word i * 64 (a line and page pattern with gaps), then
// persists: every thread waits at gpm_persist.
struct store_then_persist {
  void operator()(auto& t, pm::pm_span<std::uint64_t> words) const {
    auto v = words.bind(t);
    const std::uint64_t i = t.global_id();
    v[i * 64] = i + 1;
    t.gpm_persist();
  }
};

}  // namespace gpmx::test
