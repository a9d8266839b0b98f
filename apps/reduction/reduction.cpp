#include "reduction/reduction.hpp"

#include <algorithm>

#include "common/region_size.hpp"
#include "reduction/reduction_kernel.hpp"

namespace gpmx::apps::reduction {

job::job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s)
    : pool_(std::move(pool)),
      shape_(s),
      input_(region_of_size(*pool_, "input", s.elements * 8, "the recorded elements")),
      partial_(region_of_size(*pool_, "partial", std::uint64_t(s.blocks()) * s.threads * 8,
                              "the recorded blocks of threads")),
      total_(region_of_size(*pool_, "total", 8, "one total")) {}

job job::create(const std::filesystem::path& dir, const native::chunked_shape& s, pm::durability mode) {
  const std::uint64_t slots = std::uint64_t(s.blocks()) * s.threads;
  auto pool = std::make_unique<pm::pool>(pm::pool::create(
      dir / pool_file, native::pool_bytes({s.elements * 8, slots * 8, 8}), {.mode = mode}));
  native::create_input(*pool, "input", s);
  pool->create_region("partial", slots * 8);  // zeroed: every slot empty
  pool->create_region("total", 8);
  return job(std::move(pool), s);
}

job job::open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s) { return job(std::move(pool), s); }

void job::compute(const launch_target& ex, pm::ordering o, scope final_release, input_layout layout) {
  const std::uint32_t blocks = shape_.blocks();
  // Fresh volatile flags: after a crash they are gone, and the persisted
  // slots tell the kernel what is done.
  kernel_vector<std::uint32_t> words(std::uint64_t(blocks) * shape_.threads + blocks + 1, 0);
  const sync_words sync{words.data(), words.data() + std::uint64_t(blocks) * shape_.threads, &words.back()};
  // The device copy is made by the host before the launch, as a cudaMemcpy
  // would be (not a kernel, so the timed mode does not time it).
  kernel_vector<std::uint64_t> device_copy;
  if (layout.in_device) {
    const auto in = input_.as<const std::uint64_t>();
    device_copy.assign(in.begin(), in.end());
  }
  const kernel_args args{input_.span<std::uint64_t>(),
                         global_span<const std::uint64_t>(device_copy.data(), device_copy.size()),
                         partial_.span<std::uint64_t>(),
                         total_.span<std::uint64_t>(),
                         shape_.per_thread,
                         layout.interleaved ? std::uint64_t(blocks) * shape_.threads : 0,
                         o,
                         final_release,
                         sync};
  ex.launch({dim3(blocks), dim3(shape_.threads), 0, "reduction"}, reduce_kernel{}, args);
}

std::uint64_t job::persisted_partials() const {
  const auto p = partials();
  return std::uint64_t(std::count_if(p.begin(), p.end(), [](std::uint64_t v) { return v != native::empty; }));
}

std::vector<std::uint64_t> reference_partials(const native::chunked_shape& s, bool interleaved) {
  std::vector<std::uint64_t> slots(std::uint64_t(s.blocks()) * s.threads, 0);
  for (std::uint64_t i = 0; i < s.elements; ++i)
    slots[interleaved ? i % slots.size() : i / s.per_thread] += native::input_value(s.seed, i);
  // The kernel's folding: after stride s, threads >= s never change again.
  for (std::uint64_t b = 0; b < s.blocks(); ++b) {
    std::uint64_t* block = slots.data() + b * s.threads;
    for (std::uint32_t stride = s.threads / 2; stride >= 1; stride /= 2)
      for (std::uint32_t tid = 0; tid < stride; ++tid) block[tid] += block[tid + stride];
  }
  return slots;
}

std::uint64_t reference_total(const native::chunked_shape& s) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < s.elements; ++i) sum += native::input_value(s.seed, i);
  return sum;
}

}  // namespace gpmx::apps::reduction
