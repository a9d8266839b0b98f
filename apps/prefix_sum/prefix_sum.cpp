#include "prefix_sum/prefix_sum.hpp"

#include "common/region_size.hpp"
#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/stored_value.hpp"
#include "prefix_sum/prefix_sum_kernel.hpp"

namespace gpmx::apps::prefix_sum {

job::job(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s)
    : pool_(std::move(pool)),
      shape_(s),
      input_(region_of_size(*pool_, "input", s.elements * 8, "the recorded elements")),
      partial_(region_of_size(*pool_, "partial", s.elements * 8, "the recorded elements")),
      output_(region_of_size(*pool_, "output", s.elements * 8, "the recorded elements")),
      stage_(region_of_size(*pool_, "stage", 8, "the stage word")) {}

job job::create(const std::filesystem::path& dir, const native::chunked_shape& s, pm::durability mode) {
  const std::uint64_t bytes = s.elements * 8;
  auto pool = std::make_unique<pm::pool>(
      pm::pool::create(dir / pool_file, native::pool_bytes({bytes, bytes, bytes, 8}), {.mode = mode}));
  native::create_input(*pool, "input", s);
  pool->create_region("partial", bytes);  // zeroed: every element empty
  pool->create_region("output", bytes);
  pool->create_region("stage", 8);  // partial_pass
  return job(std::move(pool), s);
}

// A stage word naming no stage would make recovery skip both passes.
job job::open(std::unique_ptr<pm::pool> pool, const native::chunked_shape& s) {
  job out(std::move(pool), s);
  pm::check_stored(out.pool_->path(), "stage", "stage word", out.stage_.as<std::uint64_t>()[0], 0,
                   std::uint64_t(stage::done));
  return out;
}

template <class Kernel>
void job::launch(const launch_target& ex, pm::ordering o, const char* name, bool total_before_join) {
  kernel_vector<std::uint32_t> flags(std::uint64_t(shape_.blocks()) * shape_.threads, 0);
  const kernel_args args{input_.span<std::uint64_t>(), partial_.span<std::uint64_t>(), output_.span<std::uint64_t>(),
                         shape_.per_thread, o, flags.data(), total_before_join};
  ex.launch({dim3(shape_.blocks()), dim3(shape_.threads), 0, name}, Kernel{}, args);
}

void job::set_stage(stage s) {
  stage_.as<std::uint64_t>()[0] = std::uint64_t(s);
  stage_.persist();
  crash_trigger::point();
}

void job::finish(const launch_target& ex, pm::ordering o, const std::function<void(double)>& after_pass,
                 bool total_before_join) {
  if (current_stage() == stage::partial_pass) {
    launch<partial_sums_kernel>(ex, o, "prefix_sum_partial", total_before_join);
    set_stage(stage::final_pass);  // every block's partial sums are durable (kernel end)
    if (after_pass) after_pass(0.5);
  }
  if (current_stage() == stage::final_pass) {
    launch<final_pass_kernel>(ex, o, "prefix_sum_final", total_before_join);
    set_stage(stage::done);
    if (after_pass) after_pass(1.0);
  }
}

std::uint64_t job::whole_blocks(std::span<const std::uint64_t> v) const {
  std::uint64_t n = 0;
  for (std::uint64_t b = 0; b < shape_.blocks(); ++b) n += v[(b + 1) * shape_.span() - 1] != native::empty;
  return n;
}

reference reference_sums(const native::chunked_shape& s) {
  reference r{std::vector<std::uint64_t>(s.elements), std::vector<std::uint64_t>(s.elements)};
  std::uint64_t global = 0, local = 0;
  for (std::uint64_t i = 0; i < s.elements; ++i) {
    if (i % s.span() == 0) local = 0;
    const std::uint64_t x = native::input_value(s.seed, i);
    r.partial[i] = local += x;
    r.output[i] = global += x;
  }
  return r;
}

}  // namespace gpmx::apps::prefix_sum
