#pragma once
// Fiber stacks for one worker: mapped a slab of 64 at a time, each with a
// guard page below, reused across blocks and launches so a kernel's fibers
// cost no system call once warm. The timed mode keeps a whole GPU's threads
// (30,720 on sbrp-table1) parked at once: with a mapping per stack and one
// per guard page that came near vm.max_map_count (65,530 by default), and
// past it under ThreadSanitizer.
#include <boost/context/stack_context.hpp>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpmx::cpu::detail {

class stack_pool {
 public:
  explicit stack_pool(std::size_t stack_bytes);
  ~stack_pool();
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;

  // Throws gpmx::error naming the count in use when no stack can be mapped.
  boost::context::stack_context take();
  // Never allocates (take made room): it runs where nothing may throw.
  void give_back(boost::context::stack_context& sc) noexcept;
  // Stacks handed out and not given back.
  std::size_t in_use() const { return outstanding_; }
  std::size_t stack_bytes() const { return usable_; }
  // The stack handed out last (the sanitizers need its bounds).
  const boost::context::stack_context& last_taken() const { return last_; }
  // Whether guard pages are marked inside a slab's one mapping (Linux 6.13
  // and later), not mappings of their own; known once a slab is mapped.
  bool guards_share_the_mapping() const { return guard_regions_; }
  static constexpr std::size_t stacks_per_slab = 64;

 private:
  // Cache lines between the colors of stacks mapped one after another: odd,
  // so that 64 in a row get all 64 line offsets of a page.
  static constexpr std::size_t color_step = 64 * 37;
  std::size_t slab_bytes() const { return stacks_per_slab * (usable_ + page_); }
  void map_slab();
  std::size_t mapped_ = 0;  // stacks in every slab
  std::vector<void*> slabs_;
  bool guard_regions_ = true;  // until the kernel refuses MADV_GUARD_INSTALL
  std::size_t usable_;  // bytes a fiber may use
  std::size_t page_;
  struct free_stack {
    void* base;         // guard page first
    std::size_t color;  // kept when the stack is taken again
  };
  std::vector<free_stack> free_;
  std::size_t outstanding_ = 0;
  boost::context::stack_context last_{};
};

// Boost.Context StackAllocator over a stack_pool.
struct pooled_stack_allocator {
  stack_pool* pool;
  boost::context::stack_context allocate() { return pool->take(); }
  void deallocate(boost::context::stack_context& sc) noexcept { pool->give_back(sc); }
};

}  // namespace gpmx::cpu::detail
