#pragma once
// Kernel memory for the timed mode: every kernel_vector starts on a page of
// its own, as a GPU allocator aligns its buffers. The model numbers pages in
// the order the run touches them, so a buffer's simulated address then no
// longer depends on where the host's heap put it (its offset within a page
// did: a progress bar's allocations moved buffers across lines and changed
// the cycles). While a scope lives, kernel_memory() is this resource.
#include <memory_resource>

namespace gpmx::sim {

// Page-aligned, page-rounded allocations; never destroyed, so buffers may
// outlive the scope that made them.
std::pmr::memory_resource* page_aligned_memory() noexcept;

class canonical_kernel_memory {
 public:
  canonical_kernel_memory();
  ~canonical_kernel_memory();
  canonical_kernel_memory(const canonical_kernel_memory&) = delete;
  canonical_kernel_memory& operator=(const canonical_kernel_memory&) = delete;

 private:
  std::pmr::memory_resource* previous_;
};

}  // namespace gpmx::sim
