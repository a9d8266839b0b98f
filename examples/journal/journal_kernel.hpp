#pragma once
// The example's kernel: every thread appends one record to a journal in
// persistent memory and then commits it. The record must be durable before
// its commit is, or a crash can leave a commit pointing at a torn record.
#include <cstdint>

#include <gpmx/exec/portability.hpp>
#include <gpmx/pm/view.hpp>

namespace journal {

struct record {
  std::uint64_t key;
  std::uint64_t value;
  std::uint64_t check;  // key ^ value ^ magic: a torn record fails it
};
inline constexpr std::uint64_t magic = 0x6a6f75726e616cULL;

GPMX_HD inline std::uint64_t value_of(std::uint64_t key) { return key * 2654435761ULL + 7; }
GPMX_HD inline std::uint64_t check_of(std::uint64_t key, std::uint64_t value) { return key ^ value ^ magic; }

// One record per thread: slot = the thread's global id.
struct append_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, gpmx::pm::pm_span<record> records, gpmx::pm::pm_span<std::uint64_t> commits) const {
    auto rec = records.bind(t);
    auto com = commits.bind(t);
    const std::uint64_t slot = t.global_id();
    if (slot >= records.size()) return;
    const std::uint64_t key = slot + 1;
    const std::uint64_t value = value_of(key);
    rec[slot] = record{key, value, check_of(key, value)};
    t.gpm_persist();  // the record is durable before its commit
    com[slot] = 1;
    t.gpm_persist();
  }
};

}  // namespace journal
