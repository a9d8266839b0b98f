#pragma once
// Small PM kernels for the trace tests, with the lines of their operations
// named so that tests can check the recorded source locations.
#include <cstdint>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/persist_domain.hpp"
#include "gpmx/pm/view.hpp"
#include "gpmx/trace/recorder.hpp"

namespace trace_test {

// PM stand-in: plain memory whose persists do nothing (recording is what is tested).
struct memory_domain : gpmx::persist_domain {
  void persist_range(const void*, std::size_t) const override {}
};

// Each thread writes its slot, fences, reads it back and persists.
inline constexpr unsigned write_line = __LINE__ + 8;
inline constexpr unsigned ofence_line = __LINE__ + 8;
inline constexpr unsigned read_line = __LINE__ + 8;
inline constexpr unsigned persist_line = __LINE__ + 9;
struct write_fence_read {
  void operator()(auto& t, gpmx::pm::pm_span<std::uint64_t> slots, std::uint64_t* seen) const {
    auto v = slots.bind(t);
    const std::uint64_t i = t.global_id();
    v[i] = 100 + i;
    t.ofence();
    const std::uint64_t back = v[i];
    seen[i] = back;
    t.gpm_persist();
  }
};

// Thread 0 of every block writes data and releases a flag; the others
// acquire it. The flag lives in device memory.
inline constexpr unsigned prel_line = __LINE__ + 9;
inline constexpr unsigned pacq_line = __LINE__ + 11;
struct release_acquire {
  void operator()(auto& t, gpmx::pm::pm_span<std::uint32_t> data, std::uint32_t* flags,
                  std::uint32_t* got) const {
    auto v = data.bind(t);
    std::uint32_t* flag = flags + t.block_rank();
    if (t.thread_rank() == 0) {
      v[t.block_rank()] = 7;
      t.prel(gpmx::scope::block, flag, 1u);
    } else {
      std::uint32_t seen = 0;
      t.spin_wait([&] { return (seen = t.pacq(gpmx::scope::block, flag)) == 1u; });
      got[t.global_id()] = seen;
    }
  }
};

// Runs write_fence_read on grid x block threads under the trace schedule.
inline gpmx::trace::trace record_write_fence_read(std::uint64_t seed, unsigned grid, unsigned block) {
  memory_domain domain;
  std::vector<std::uint64_t> slots(grid * block, 0), seen(grid * block, 0);
  gpmx::trace::recorder rec;
  gpmx::cpu::executor ex({.policy = gpmx::cpu::schedule::deterministic, .seed = seed, .observer = &rec});
  ex.launch({gpmx::dim3(grid), gpmx::dim3(block), 0, "write_fence_read"}, write_fence_read{},
            gpmx::pm::pm_span<std::uint64_t>(slots.data(), slots.size(), &domain), seen.data());
  // Addresses as offsets into the slots, so that two recordings compare
  // equal whatever addresses the allocator handed out.
  gpmx::trace::trace t = rec.take();
  const auto base = reinterpret_cast<std::uintptr_t>(slots.data());
  for (gpmx::trace::event& e : t.events)
    if (e.address >= base && e.address < base + slots.size() * sizeof(std::uint64_t)) e.address -= base;
  return t;
}

}  // namespace trace_test
