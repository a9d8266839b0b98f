#pragma once
// Volatile memory that kernels may touch, wherever they run. On the cpu
// executor it is ordinary heap memory; while a GPU session is open
// (gpu_session.hpp) it is CUDA managed memory, reachable from the GPU and
// readable by the host after a kernel, so host code that fills a buffer,
// launches and reads the result is the same for both back ends.
#include <cstddef>
#include <memory_resource>
#include <span>
#include <type_traits>
#include <vector>

namespace gpmx {

// Where kernel_vector allocates now (new/delete unless a GPU session set
// another); set_kernel_memory returns the previous one.
std::pmr::memory_resource* kernel_memory() noexcept;
std::pmr::memory_resource* set_kernel_memory(std::pmr::memory_resource* r) noexcept;

// Keeps the resource it was made with, so a buffer is always freed where it
// was allocated, even after the session that chose the resource closed.
template <class T>
class kernel_allocator {
 public:
  using value_type = T;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;

  kernel_allocator() noexcept : r_(kernel_memory()) {}
  template <class U>
  kernel_allocator(const kernel_allocator<U>& o) noexcept : r_(o.resource()) {}

  T* allocate(std::size_t n) { return static_cast<T*>(r_->allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { r_->deallocate(p, n * sizeof(T), alignof(T)); }
  std::pmr::memory_resource* resource() const noexcept { return r_; }
  friend bool operator==(const kernel_allocator& a, const kernel_allocator& b) noexcept { return a.r_ == b.r_; }

 private:
  std::pmr::memory_resource* r_;
};

template <class T>
using kernel_vector = std::vector<T, kernel_allocator<T>>;

// A copy of host data in kernel memory.
template <class T>
kernel_vector<std::remove_const_t<T>> to_kernel_memory(std::span<T> s) {
  return kernel_vector<std::remove_const_t<T>>(s.begin(), s.end());
}

}  // namespace gpmx
