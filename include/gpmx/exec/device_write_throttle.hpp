#pragma once
// Slow NVRAM emulated on a GPU: the state the kernels share, in device
// memory, while a gpu_session throttles PM writes
// (gpu_session::throttle_pm_writes). The rules are pm::write_throttle's on
// the cpu executor: a device that writes one sector every `ps_per_sector`
// picoseconds, charged whole sectors, busy until `free_at_ps`. A GPU store
// to PM is posted: the store charges its sectors and goes on, as a write
// crossing PCIe does; a durability point (a persist, a fence that waits for
// durability, a release, the thread's end) waits until the device would
// have written everything the thread charged. The paper the helper warps
// come from emulated NVRAM this way, with a delay per write (the notes).
// Plain C++: the session fills it, thread_ctx.cuh reads and charges it.
#include <cstdint>

namespace gpmx {

struct device_write_throttle {
  // The GPU's global timer (ns) when the throttle was set: times below are
  // picoseconds after it, so they fit 64 bits for 200 days.
  unsigned long long origin_ns = 0;
  // When the emulated device finishes what was charged so far.
  unsigned long long free_at_ps = 0;
  unsigned long long ps_per_sector = 0;
  unsigned long long charged_sectors = 0;
  // The SM clock's cycles in 10 s: a wait that counts that many cycles
  // while the global timer has not reached its deadline reports a stalled
  // timer instead of hanging.
  unsigned long long stall_cycles = 0;
  unsigned sector_bytes = 0;
  // 0: lanes storing into one sector share it (the default); 1: each
  // lane's store books its own sectors, no warp-wide operation (a
  // diagnostic: GPMX_GPU_THROTTLE_PER_LANE=1, docs/transactions.md).
  unsigned per_lane = 0;
};

}  // namespace gpmx
