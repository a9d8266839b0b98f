#include "gpmx/pm/crash_trigger.hpp"

#include "gpmx/exec/gpu_session.hpp"

namespace gpmx::crash_trigger {
namespace {
std::atomic<std::uint64_t> points{0};
std::atomic<std::uint64_t> limit_at{0};
std::atomic<limit_handler> handler{nullptr};
}  // namespace

void detail::on_point() {
  const std::uint64_t n = points.fetch_add(1, std::memory_order_relaxed) + 1;
  const std::uint64_t limit = limit_at.load(std::memory_order_relaxed);
  if (limit != 0 && n >= limit)
    if (limit_handler h = handler.load(std::memory_order_acquire)) h(n);
}

void arm(std::uint64_t limit, limit_handler at_limit) {
  points.store(0, std::memory_order_relaxed);
  limit_at.store(limit, std::memory_order_relaxed);
  handler.store(at_limit, std::memory_order_release);
  detail::armed.store(true, std::memory_order_seq_cst);
  // A GPU kernel's stores make no point the host sees; its launch, and its
  // end once its stores are durable, are points.
  gpu_session::set_kernel_boundary_hook(&point);
}

void disarm() {
  detail::armed.store(false, std::memory_order_seq_cst);
  gpu_session::set_kernel_boundary_hook(nullptr);
  limit_at.store(0, std::memory_order_relaxed);
  handler.store(nullptr, std::memory_order_release);
}

std::uint64_t count() { return points.load(std::memory_order_relaxed); }

}  // namespace gpmx::crash_trigger
