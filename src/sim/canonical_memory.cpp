#include "gpmx/sim/canonical_memory.hpp"

#include <new>

#include "gpmx/exec/kernel_memory.hpp"

namespace gpmx::sim {
namespace {

constexpr std::size_t page = 4096;

std::size_t rounded(std::size_t bytes) { return (bytes == 0 ? 1 : bytes + page - 1) / page * page; }

class page_aligned final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t) override {
    return ::operator new(rounded(bytes), std::align_val_t{page});
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t) override {
    ::operator delete(p, rounded(bytes), std::align_val_t{page});
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};

}  // namespace

std::pmr::memory_resource* page_aligned_memory() noexcept {
  static page_aligned* r = new page_aligned;
  return r;
}

canonical_kernel_memory::canonical_kernel_memory() : previous_(set_kernel_memory(page_aligned_memory())) {}
canonical_kernel_memory::~canonical_kernel_memory() { set_kernel_memory(previous_); }

}  // namespace gpmx::sim
