#include "scan/scan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/region_size.hpp"
#include "gpmx/pm/stored_value.hpp"
#include "scan/scan_kernel.hpp"

namespace gpmx::apps::scan {

job::job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s)
    : pool_(std::move(pool)),
      shape_(s),
      input_(region_of_size(*pool_, "input", s.elements * 8, "the recorded elements")),
      ping_(region_of_size(*pool_, "ping", s.elements * 8, "the recorded elements")),
      pong_(region_of_size(*pool_, "pong", s.elements * 8, "the recorded elements")),
      progress_(region_of_size(*pool_, "progress", std::uint64_t(s.blocks()) * 8, "the recorded arrays")) {}

job job::create(const std::filesystem::path& dir, const native::chunked_shape& s, pm::durability mode) {
  const std::uint64_t bytes = s.elements * 8;
  auto pool = std::make_unique<pm::pool>(pm::pool::create(
      dir / pool_file, native::pool_bytes({bytes, bytes, bytes, std::uint64_t(s.blocks()) * 8}), {.mode = mode}));
  native::create_input(*pool, "input", s);
  pool->create_region("ping", bytes);
  pool->create_region("pong", bytes);
  pool->create_region("progress", std::uint64_t(s.blocks()) * 8);  // zeroed: no pass done
  return job(std::move(pool), s);
}

// A marker past the last pass would end the array's kernel early and leave a
// result never computed (or, with a wrapped 32-bit value, redo passes).
job job::open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s) {
  job out(std::move(pool), s);
  const auto p = out.progress();
  for (std::size_t b = 0; b < p.size(); ++b)
    pm::check_stored(out.pool_->path(), "progress", fmt::format("pass marker of array {}", b), p[b], 0, out.passes());
  return out;
}

std::uint32_t job::passes() const { return passes_for(shape_.threads); }

void job::compute(const launch_target& ex, pm::ordering o, bool plain_acquire_join) {
  const std::uint32_t arrays = shape_.blocks();
  kernel_vector<std::uint32_t> words(std::uint64_t(arrays) * shape_.threads + arrays, 0);
  const sync_words sync{words.data(), words.data() + std::uint64_t(arrays) * shape_.threads};
  const kernel_args args{input_.span<std::uint64_t>(),
                         {ping_.span<std::uint64_t>(), pong_.span<std::uint64_t>()},
                         progress_.span<std::uint64_t>(),
                         shape_.per_thread,
                         o,
                         sync,
                         plain_acquire_join};
  ex.launch({dim3(arrays), dim3(shape_.threads), 0, "scan"}, scan_kernel{}, args);
}

std::uint64_t job::finished_arrays() const {
  const auto p = progress();
  const std::uint32_t all = passes();
  return std::uint64_t(std::count_if(p.begin(), p.end(), [all](std::uint64_t v) { return v == all; }));
}

std::span<const std::uint64_t> job::result() const {
  return ((passes() - 1) % 2 == 0 ? ping_ : pong_).as<const std::uint64_t>();
}

std::vector<std::uint64_t> reference_scan(const native::chunked_shape& s) {
  std::vector<std::uint64_t> out(s.elements);
  std::uint64_t running = 0;
  for (std::uint64_t i = 0; i < s.elements; ++i) {
    if (i % s.span() == 0) running = 0;  // each array is scanned on its own
    out[i] = running += native::input_value(s.seed, i);
  }
  return out;
}

}  // namespace gpmx::apps::scan
