#pragma once
// Bytes written to PM, process-wide: what kernels stored through PM views and
// logs, and what host code persisted with a pool. Write-amplification figures
// compare these across implementations of one workload; flush traffic (which
// the cpu executor inflates to whole lines or pages) is counted by the pool.
#include <atomic>
#include <cstdint>

namespace gpmx::pm_write_stats {

namespace detail {
inline std::atomic<std::uint64_t> kernel_bytes{0};
inline std::atomic<std::uint64_t> host_bytes{0};
}  // namespace detail

// Threads add what they stored since their last persist, once per persist.
inline void add_kernel_stores(std::uint64_t bytes) { detail::kernel_bytes.fetch_add(bytes, std::memory_order_relaxed); }
inline void add_host_persist(std::uint64_t bytes) { detail::host_bytes.fetch_add(bytes, std::memory_order_relaxed); }
inline std::uint64_t kernel_stores() { return detail::kernel_bytes.load(std::memory_order_relaxed); }
inline std::uint64_t host_persists() { return detail::host_bytes.load(std::memory_order_relaxed); }
// Everything written so far: take the difference around a run.
inline std::uint64_t total() { return kernel_stores() + host_persists(); }

}  // namespace gpmx::pm_write_stats
