#include "gpmx/sim/canonical_memory.hpp"

#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "gpmx/exec/kernel_memory.hpp"

namespace gpmx::sim {
namespace {

constexpr std::size_t page = 4096;

std::size_t rounded(std::size_t bytes) { return (bytes == 0 ? 1 : bytes + page - 1) / page * page; }

// Freed buffers are kept and handed out again, the last freed first, to
// the next buffer of their size. Given back to the host heap, a freed page
// came back to a later buffer or not depending on every other allocation
// of the process (a longer data path was enough), and a page seen before
// keeps its simulated frame, still warm in the model's caches: the cycles
// moved with the host heap.
class page_aligned final : public std::pmr::memory_resource {
  void* do_allocate(std::size_t bytes, std::size_t) override {
    const std::size_t n = rounded(bytes);
    {
      const std::lock_guard<std::mutex> hold(mutex_);
      std::vector<void*>& kept = free_[n];
      if (!kept.empty()) {
        void* p = kept.back();
        kept.pop_back();
        return p;
      }
    }
    return ::operator new(n, std::align_val_t{page});
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t) override {
    const std::lock_guard<std::mutex> hold(mutex_);
    free_[rounded(bytes)].push_back(p);
  }
  std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<void*>> free_;  // by rounded size
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
