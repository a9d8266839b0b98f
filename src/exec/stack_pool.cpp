#include "stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

#if defined(GPMX_SANITIZER_address)
#include <sanitizer/asan_interface.h>
#endif

// Linux 6.13: a guard page marked in the page tables, inside a mapping,
// instead of a PROT_NONE mapping of its own.
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

namespace gpmx::cpu::detail {

stack_pool::stack_pool(std::size_t stack_bytes) : page_(std::size_t(::sysconf(_SC_PAGESIZE))) {
  usable_ = (stack_bytes + page_ - 1) / page_ * page_;
}

stack_pool::~stack_pool() {
  for (void* slab : slabs_) {
#if defined(GPMX_SANITIZER_address)
    // Frames that ran on these stacks left redzones in ASan's shadow; a
    // later mapping at the same address (a pool file) would inherit them.
    ASAN_UNPOISON_MEMORY_REGION(slab, slab_bytes());
#endif
    ::munmap(slab, slab_bytes());
  }
}

void stack_pool::map_slab() {
  void* slab = ::mmap(nullptr, slab_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                      -1, 0);
  if (slab == MAP_FAILED)
    throw error(error_code::io, fmt::format("cannot map {} fiber stacks of {} bytes: {} ({} stacks in use)",
                                            stacks_per_slab, usable_, std::strerror(errno), outstanding_));
  slabs_.push_back(slab);
  // Lowest stack last in the free list: stacks are taken in address order.
  for (std::size_t i = stacks_per_slab; i-- > 0;) {
    char* base = static_cast<char*>(slab) + i * (usable_ + page_);
    // Overflow faults instead of running into the stack below. A guard
    // region keeps the slab one mapping; a PROT_NONE page (kernels before
    // 6.13) splits it, two mappings per stack.
    if (guard_regions_ && ::madvise(base, page_, MADV_GUARD_INSTALL) != 0) guard_regions_ = false;
    if (!guard_regions_) ::mprotect(base, page_, PROT_NONE);
    free_.push_back({base, ((mapped_ + i) * color_step) % page_});
  }
  mapped_ += stacks_per_slab;
  // Room for every stack to come back without an allocation (a fiber's
  // exit, where an exception would end the process).
  free_.reserve(mapped_);
}

boost::context::stack_context stack_pool::take() {
  if (free_.empty()) map_slab();
  // A stack keeps its color: frames laid out as before (a sanitizer's marks
  // on the stack from its last fiber stay where frames will be).
  void* base = free_.back().base;
  const std::size_t color = free_.back().color;
  free_.pop_back();
  ++outstanding_;
  boost::context::stack_context sc;
  // Stacks are page-aligned, so every fiber's newest frames would sit at the
  // same offset in a page and so in the same few cache sets: thousands of
  // parked fibers resumed in turn would evict each other there. Each stack
  // starts a different number of cache lines below its top instead: the
  // color, under a page, given in turn to each stack mapped (not from the
  // address: where mmap puts stacks varies, under a sanitizer too).
  sc.size = usable_ - color;
  sc.sp = static_cast<char*>(base) + page_ + usable_ - color;  // stacks grow down
  last_ = sc;
  return sc;
}

void stack_pool::give_back(boost::context::stack_context& sc) noexcept {
  // The color is under a page: rounding up finds the stack's base again.
  const auto low = reinterpret_cast<std::uintptr_t>(sc.sp) - usable_ - page_;
  const auto base = (low + page_ - 1) / page_ * page_;
  free_.push_back({reinterpret_cast<void*>(base), base - low});
  --outstanding_;
}

}  // namespace gpmx::cpu::detail
