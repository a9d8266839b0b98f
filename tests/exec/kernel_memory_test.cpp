// Where kernel buffers and host-visible buffers come from, and that each is
// freed by the resource that allocated it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <memory_resource>

#include "gpmx/exec/kernel_memory.hpp"

namespace gpmx {
namespace {

// Counts what passes through it, then hands on to new/delete.
class counting_resource final : public std::pmr::memory_resource {
 public:
  std::size_t allocated = 0, freed = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    allocated += bytes;
    return std::pmr::new_delete_resource()->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    freed += bytes;
    std::pmr::new_delete_resource()->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }
};

// Restores both resources whatever a test leaves.
class KernelMemory : public ::testing::Test {
 protected:
  void TearDown() override {
    set_host_visible_memory(nullptr);
    set_kernel_memory(nullptr);
  }
};

TEST_F(KernelMemory, HostVisibleFollowsKernelMemoryUntilOneIsSet) {
  counting_resource kernel;
  set_kernel_memory(&kernel);
  EXPECT_EQ(host_visible_memory(), &kernel);
  {
    host_visible_vector<int> v(100, 7);
    EXPECT_GE(kernel.allocated, 100 * sizeof(int));
  }
  EXPECT_EQ(kernel.freed, kernel.allocated);

  counting_resource visible;
  EXPECT_EQ(set_host_visible_memory(&visible), nullptr);
  EXPECT_EQ(host_visible_memory(), &visible);
  const std::size_t kernel_before = kernel.allocated;
  {
    host_visible_vector<long> v(50, 1);
    kernel_vector<long> k(30, 2);
    EXPECT_GE(visible.allocated, 50 * sizeof(long));
    EXPECT_EQ(kernel.allocated - kernel_before, 30 * sizeof(long));
  }
  EXPECT_EQ(visible.freed, visible.allocated);
  EXPECT_EQ(set_host_visible_memory(nullptr), &visible);
  EXPECT_EQ(host_visible_memory(), &kernel);
}

TEST_F(KernelMemory, ABufferIsFreedWhereItWasAllocatedAfterTheResourceChanged) {
  counting_resource first, second;
  set_host_visible_memory(&first);
  auto* v = new host_visible_vector<int>(64, 3);
  set_host_visible_memory(&second);
  host_visible_vector<int> copy(*v);  // a copy keeps its source's resource (propagated)
  delete v;
  EXPECT_EQ(first.freed, 64 * sizeof(int));
  EXPECT_EQ(second.allocated, 0u);
  copy.clear();
  copy.shrink_to_fit();
  EXPECT_EQ(first.freed, first.allocated);
}

TEST_F(KernelMemory, AHostVisibleBlockIsZeroedAlignedAndFreedWhereItWasAllocated) {
  counting_resource visible;
  {
    const host_visible_block follows(10000, 4096);  // no resource set: kernel memory
    EXPECT_FALSE(follows.apart_from_kernel_memory());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(follows.data()) % 4096, 0u);
    EXPECT_EQ(std::count(follows.data(), follows.data() + follows.size(), std::byte{0}), 10000);
  }
  set_host_visible_memory(&visible);
  auto block = std::make_unique<host_visible_block>(8192, 4096);
  EXPECT_TRUE(block->apart_from_kernel_memory()) << "beside a GPU: words shared with a host agent take system scope";
  EXPECT_EQ(visible.allocated, 8192u);
  set_host_visible_memory(nullptr);
  block.reset();
  EXPECT_EQ(visible.freed, 8192u);
}

}  // namespace
}  // namespace gpmx
