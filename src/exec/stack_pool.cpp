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

namespace gpmx::cpu::detail {

stack_pool::stack_pool(std::size_t stack_bytes) : page_(std::size_t(::sysconf(_SC_PAGESIZE))) {
  usable_ = (stack_bytes + page_ - 1) / page_ * page_;
}

stack_pool::~stack_pool() {
  for (const free_stack& f : free_) {
#if defined(GPMX_SANITIZER_address)
    // Frames that ran on this stack left redzones in ASan's shadow; a later
    // mapping at the same address (a pool file) would inherit them.
    ASAN_UNPOISON_MEMORY_REGION(f.base, usable_ + page_);
#endif
    ::munmap(f.base, usable_ + page_);
  }
}

boost::context::stack_context stack_pool::take() {
  // Room for every stack out to come back without an allocation (a fiber's
  // exit, where an exception would end the process).
  free_.reserve(free_.size() + outstanding_ + 1);
  void* base;
  std::size_t color;
  if (!free_.empty()) {
    // A stack keeps its color: frames laid out as before (a sanitizer's
    // marks on the stack from its last fiber stay where frames will be).
    base = free_.back().base;
    color = free_.back().color;
    free_.pop_back();
  } else {
    base = ::mmap(nullptr, usable_ + page_, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
      throw error(error_code::io, fmt::format("cannot map a fiber stack of {} bytes: {} ({} stacks in use)",
                                              usable_, std::strerror(errno), outstanding_));
    ::mprotect(base, page_, PROT_NONE);  // overflow faults instead of corrupting
    color = (mapped_++ * color_step) % page_;
  }
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
