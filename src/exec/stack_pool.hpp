#pragma once
// Fiber stacks for one worker: mmap'd with a guard page below, reused across
// blocks and launches so a kernel's fibers cost no system call once warm.
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

 private:
  // Cache lines between the colors of stacks mapped one after another: odd,
  // so that 64 in a row get all 64 line offsets of a page.
  static constexpr std::size_t color_step = 64 * 37;
  std::size_t mapped_ = 0;
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
