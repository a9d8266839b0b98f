#include "scan/scan.hpp"

#include <algorithm>

#include "scan/scan_kernel.hpp"

namespace gpmx::apps::scan {

job::job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s)
    : pool_(std::move(pool)),
      shape_(s),
      input_(pool_->find("input")),
      ping_(pool_->find("ping")),
      pong_(pool_->find("pong")),
      progress_(pool_->find("progress")) {}

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

job job::open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s) { return job(std::move(pool), s); }

std::uint32_t job::passes() const { return passes_for(shape_.threads); }

void job::compute(cpu::executor& ex, pm::ordering o, bool plain_acquire_join) {
  const std::uint32_t arrays = shape_.blocks();
  std::vector<std::uint32_t> words(std::uint64_t(arrays) * shape_.threads + arrays, 0);
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
