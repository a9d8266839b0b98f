// The timed mode's cycles must not depend on where the host's heap put a
// kernel's buffers: under canonical_kernel_memory every kernel_vector starts
// a page, and the model numbers pages by first touch.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "kernels/sim_kernels.hpp"
#include "sim/sim_test_util.hpp"

namespace {
using namespace gpmx;

struct run_result {
  std::uint64_t end_ps, sectors;
  std::uintptr_t in_page_offset;  // where the heap put the input, within its page
};

// Allocates `perturb` odd-sized blocks first, so that the heap hands the
// kernel's buffers other addresses, then times a streaming kernel.
run_result run_after_heap_noise(unsigned perturb) {
  std::vector<std::unique_ptr<char[]>> noise;
  for (unsigned i = 0; i < perturb; ++i) noise.push_back(std::make_unique<char[]>(24 + 40 * i));
  sim::gpu_model gpu(sim::named_config("sbrp-table1"));
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  // Fewer threads under tsan, whose fibers would exceed the map count.
  const std::uint32_t blocks = 64 / sim::testing::sanitizer_shrink;
  kernel_vector<std::uint32_t> in(blocks * 256 * 4 + 7, 1), out(blocks * 256 + 3, 0);
  ex.launch({dim3(blocks), dim3(256), 0, "stream"}, sim_kernels::stream_sum{},
            global_span<const std::uint32_t>(in.data(), in.size()), 4u,
            global_span<std::uint32_t>(out.data(), out.size()));
  return {std::uint64_t(gpu.totals().end), gpu.memory().stats().sectors_requested,
          reinterpret_cast<std::uintptr_t>(in.data()) % 4096};
}

TEST(CanonicalKernelMemory, CyclesDoNotDependOnTheHostHeap) {
  const sim::canonical_kernel_memory placement;
  const run_result a = run_after_heap_noise(0), b = run_after_heap_noise(3), c = run_after_heap_noise(11);
  EXPECT_EQ(a.in_page_offset, 0u);
  EXPECT_EQ(a.end_ps, b.end_ps);
  EXPECT_EQ(a.end_ps, c.end_ps);
  EXPECT_EQ(a.sectors, c.sectors);
}

// Shared memory too: a block's arena is a page of its own, so its pages,
// and the simulated pages of everything touched after them, are numbered
// the same whatever the heap did before (a 64-byte aligned arena spanned
// two pages or three, and moved every later buffer's lines).
struct shared_then_stream {
  void operator()(auto& t, global_span<const std::uint32_t> in, global_span<std::uint32_t> out) const {
    auto* counts = t.template dynamic_shared<std::uint32_t>();
    const std::uint32_t words = 6 * 1024 / 4;
    for (std::uint32_t i = t.thread_rank(); i < words; i += t.block_dim().count()) counts[i] = 0;
    t.syncthreads();
    t.atomic_add(&counts[(t.thread_rank() * 37) % words], 1u, memory_order::relaxed, scope::block);
    t.syncthreads();
    auto src = in.bind(t);
    std::uint32_t sum = counts[t.thread_rank()];
    for (std::uint64_t i = t.global_id(); i < in.size(); i += t.grid_dim().count() * t.block_dim().count()) sum += src[i];
    out.bind(t)[t.global_id()] = sum;
  }
};

std::uint64_t shared_run_after_heap_noise(unsigned perturb) {
  std::vector<std::unique_ptr<char[]>> noise;
  for (unsigned i = 0; i < perturb; ++i) noise.push_back(std::make_unique<char[]>(24 + 40 * i));
  sim::gpu_model gpu(sim::named_config("sbrp-table1"));
  cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
  const std::uint32_t blocks = 32 / sim::testing::sanitizer_shrink + 1;
  kernel_vector<std::uint32_t> in(blocks * 256 * 8, 1), out(blocks * 256, 0);
  ex.launch({dim3(blocks), dim3(256), 6 * 1024, "shared"}, shared_then_stream{},
            global_span<const std::uint32_t>(in.data(), in.size()), global_span<std::uint32_t>(out.data(), out.size()));
  return std::uint64_t(gpu.totals().end);
}

TEST(CanonicalKernelMemory, SharedMemoryCyclesDoNotDependOnTheHostHeap) {
  const sim::canonical_kernel_memory placement;
  const std::uint64_t first = shared_run_after_heap_noise(0);
  for (unsigned perturb : {1u, 2u, 3u, 5u, 8u, 13u}) EXPECT_EQ(shared_run_after_heap_noise(perturb), first) << perturb;
}

// A buffer freed inside the scope comes back to the next buffer of its
// size, whatever the host heap did in between: given back to the heap, its
// page could go to a host allocation, and the next buffer got a page the
// model had never seen (a frame of its own, cold in its caches) or one it
// had, depending on the rest of the process.
TEST(CanonicalKernelMemory, AFreedBufferComesBackToTheNextBufferOfItsSize) {
  const sim::canonical_kernel_memory placement;
  const void* first = nullptr;
  {
    kernel_vector<std::uint32_t> a(3000, 1);
    first = a.data();
  }
  // The host asks for exactly such a block meanwhile.
  void* host = ::operator new(3000 * sizeof(std::uint32_t), std::align_val_t{4096});
  kernel_vector<std::uint32_t> b(3000, 2);
  EXPECT_EQ(static_cast<const void*>(b.data()), first);
  ::operator delete(host, std::align_val_t{4096});
}

TEST(CanonicalKernelMemory, ScopeRestoresThePreviousResource) {
  std::pmr::memory_resource* before = kernel_memory();
  kernel_vector<int> made_inside;
  {
    const sim::canonical_kernel_memory placement;
    EXPECT_EQ(kernel_memory(), sim::page_aligned_memory());
    made_inside = kernel_vector<int>(100, 1);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(made_inside.data()) % 4096, 0u);
  }
  EXPECT_EQ(kernel_memory(), before);
  made_inside.resize(5000, 2);  // freed and reallocated where it was made
  EXPECT_EQ(made_inside[4999], 2);
}

}  // namespace
