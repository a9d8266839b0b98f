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

// Kernel memory that host agents read or write while a kernel runs
// (published counters, flags, queues). kernel_memory() unless a GPU session
// set another: there, managed memory would migrate its page to whichever
// side touched it last, so a host thread polling words the GPU updates
// stalls the kernel on page faults; a GPU session sets pinned host memory
// mapped into the GPU, which stays put (GPU accesses cross PCIe: keep to
// words touched rarely). set_host_visible_memory(nullptr) goes back to
// following kernel_memory(); it returns the resource set before (null if none).
std::pmr::memory_resource* host_visible_memory() noexcept;
std::pmr::memory_resource* set_host_visible_memory(std::pmr::memory_resource* r) noexcept;

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
  explicit kernel_allocator(std::pmr::memory_resource* r) noexcept : r_(r) {}
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

// Allocates from host_visible_memory() (the one current when it was made).
template <class T>
class host_visible_allocator : public kernel_allocator<T> {
 public:
  host_visible_allocator() noexcept : kernel_allocator<T>(host_visible_memory()) {}
  template <class U>
  host_visible_allocator(const host_visible_allocator<U>& o) noexcept : kernel_allocator<T>(o.resource()) {}
};

template <class T>
using host_visible_vector = std::vector<T, host_visible_allocator<T>>;

// One zeroed, aligned block of memory from a resource, freed where it was
// allocated (the resource is kept, so a block outlives the session that
// chose it).
class memory_block {
 public:
  memory_block(std::pmr::memory_resource* resource, std::size_t bytes, std::size_t alignment);
  ~memory_block();
  memory_block(const memory_block&) = delete;
  memory_block& operator=(const memory_block&) = delete;
  std::byte* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return bytes_; }

 protected:
  std::pmr::memory_resource* resource() const noexcept { return resource_; }

 private:
  std::pmr::memory_resource* resource_;
  std::size_t bytes_, alignment_;
  std::byte* data_;
};

// A block of host_visible_memory() (the one current when it was made):
// queues and buffers a host agent reads and writes while a kernel runs (an
// emulated device's queue entries and doorbells, the cache lines it reads
// into).
class host_visible_block : public memory_block {
 public:
  host_visible_block(std::size_t bytes, std::size_t alignment)
      : memory_block(host_visible_memory(), bytes, alignment), apart_(resource() != kernel_memory()) {}
  // Whether it lies apart from kernel memory (pinned host memory beside a
  // GPU's): words a kernel and a host agent share there need system scope;
  // elsewhere device scope reaches the agent (the cpu executor's threads,
  // the timed mode's simulated GPU, which would time system scope as PCIe).
  // (As when it was made: a session closing later does not change it.)
  bool apart_from_kernel_memory() const noexcept { return apart_; }

 private:
  bool apart_;
};

// A block of kernel_memory() (the one current when it was made): words only
// kernel threads touch while a kernel runs (a queue's tickets and turn
// counters), which on a GPU must not live across PCIe in host-visible memory.
class kernel_block : public memory_block {
 public:
  kernel_block(std::size_t bytes, std::size_t alignment) : memory_block(kernel_memory(), bytes, alignment) {}
};

// A copy of host data in kernel memory.
template <class T>
kernel_vector<std::remove_const_t<T>> to_kernel_memory(std::span<T> s) {
  return kernel_vector<std::remove_const_t<T>>(s.begin(), s.end());
}

}  // namespace gpmx
