#pragma once
// Bytes written to PM, process-wide: what kernels stored through PM views and
// logs, and what host code persisted with a pool. Write-amplification figures
// compare these across implementations of one workload; flush traffic (which
// the cpu executor inflates to whole lines or pages) is counted by the pool.
#include <atomic>
#include <cstdint>

namespace gpmx::pm_write_stats {

namespace detail {
// One counter per OS thread, written only by its thread (no contended
// read-modify-write on the store path); totals sum them.
struct thread_counter {
  thread_counter();
  ~thread_counter();
  std::atomic<std::uint64_t> bytes{0};
};
thread_counter& this_thread_counter();  // makes the thread's counter and sets `current`
// The thread's counter once made: a plain pointer, so the store path reads
// it without the call and guard a thread_local object's access costs.
inline thread_local thread_counter* current = nullptr;
inline std::atomic<std::uint64_t> host_bytes{0};
}  // namespace detail

// A kernel thread stored `bytes` bytes to PM (PM views and logs call it
// through pm::note_pm_store).
inline void add_kernel_store(std::uint64_t bytes) {
  detail::thread_counter* t = detail::current;
  if (t == nullptr) [[unlikely]] t = &detail::this_thread_counter();
  std::atomic<std::uint64_t>& c = t->bytes;
  c.store(c.load(std::memory_order_relaxed) + bytes, std::memory_order_relaxed);
}
inline void add_host_persist(std::uint64_t bytes) { detail::host_bytes.fetch_add(bytes, std::memory_order_relaxed); }
// Exact once the launches that stored have returned; includes what GPU
// kernels stored (gpu_session::kernel_pm_store_bytes).
std::uint64_t kernel_stores();
inline std::uint64_t host_persists() { return detail::host_bytes.load(std::memory_order_relaxed); }
// Everything written so far: take the difference around a run.
inline std::uint64_t total() { return kernel_stores() + host_persists(); }

}  // namespace gpmx::pm_write_stats
