#include "gpmx/exec/kernel_memory.hpp"

#include <atomic>
#include <cstring>

namespace gpmx {
namespace {
std::atomic<std::pmr::memory_resource*>& current() {
  static std::atomic<std::pmr::memory_resource*> r{std::pmr::new_delete_resource()};
  return r;
}
std::atomic<std::pmr::memory_resource*>& host_visible() {
  static std::atomic<std::pmr::memory_resource*> r{nullptr};
  return r;
}
}  // namespace

std::pmr::memory_resource* host_visible_memory() noexcept {
  std::pmr::memory_resource* r = host_visible().load(std::memory_order_acquire);
  return r != nullptr ? r : kernel_memory();
}

std::pmr::memory_resource* set_host_visible_memory(std::pmr::memory_resource* r) noexcept {
  return host_visible().exchange(r, std::memory_order_acq_rel);
}

memory_block::memory_block(std::pmr::memory_resource* resource, std::size_t bytes, std::size_t alignment)
    : resource_(resource),
      bytes_(bytes),
      alignment_(alignment),
      data_(static_cast<std::byte*>(resource_->allocate(bytes, alignment))) {
  std::memset(data_, 0, bytes);
}

memory_block::~memory_block() { resource_->deallocate(data_, bytes_, alignment_); }

std::pmr::memory_resource* kernel_memory() noexcept { return current().load(std::memory_order_acquire); }

std::pmr::memory_resource* set_kernel_memory(std::pmr::memory_resource* r) noexcept {
  return current().exchange(r ? r : std::pmr::new_delete_resource(), std::memory_order_acq_rel);
}

}  // namespace gpmx
