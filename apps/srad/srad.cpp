#include "srad/srad.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "gpmx/pm/crash_trigger.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/stored_value.hpp"
#include "gpmx/support/hash_mix.hpp"
#include "srad/srad_kernels.hpp"

namespace gpmx::apps::srad {
namespace {

constexpr std::uint32_t block = 256;
constexpr const char* pool_name = "srad.pool";

// Region "progress": word 0 is iterations_done * 2 + (coefficients ready), one
// 8-byte store so each commit is atomic; words 1 and 2 hold rows and cols.
std::uint64_t encode(progress p) { return std::uint64_t(p.iterations_done) * 2 + (p.coefficients_ready ? 1 : 0); }
progress decode(std::uint64_t w) { return {std::uint32_t(w / 2), (w & 1) != 0}; }

}  // namespace

state::state(std::unique_ptr<pm::pool> pool)
    : pool_(std::move(pool)), image_(pool_->find("image")), noise_(pool_->find("noise")),
      progress_(pool_->find("progress")) {
  const auto& file = pool_->path();
  if (progress_.size() < 24)
    pm::throw_corrupt_value(file, "progress", "size", progress_.size(), "expected at least 24 bytes");
  const auto w = progress_.as<const std::uint64_t>();
  // Within create's limits, so rows x cols and the sizes below cannot wrap.
  rows_ = std::uint32_t(pm::check_stored(file, "progress", "rows (word 1)", w[1], 1, 1u << 16));
  cols_ = std::uint32_t(pm::check_stored(file, "progress", "cols (word 2)", w[2], 1, 1u << 16));
  pm::check_stored(file, "progress", "progress word (word 0)", w[0], 0, 2ull * 0xffffffffull + 1);
  const std::uint64_t n = std::uint64_t(rows_) * cols_;
  if (image_.size() != 2 * n * sizeof(float))
    pm::throw_corrupt_value(file, "image", "size", image_.size(),
                            fmt::format("two {} x {} images need {} bytes", rows_, cols_, 2 * n * sizeof(float)));
  if (noise_.size() != n * sizeof(noise_record))
    pm::throw_corrupt_value(file, "noise", "size", noise_.size(),
                            fmt::format("a {} x {} image's noise values need {} bytes", rows_, cols_,
                                        n * sizeof(noise_record)));
}

void state::check_recorded(std::uint32_t rows, std::uint32_t cols, std::uint32_t iterations) const {
  if (rows != rows_ || cols != cols_)  // the reference would be compared past the image
    pm::throw_corrupt_region(pool_->path(), "meta",
                             fmt::format("the recorded rows={} cols={} differ from the stored {} x {} image", rows,
                                         cols, rows_, cols_));
  const progress p = where();
  if (p.iterations_done > iterations || (p.iterations_done == iterations && p.coefficients_ready))
    pm::throw_corrupt_value(pool_->path(), "progress", "progress word (word 0)", progress_.as<std::uint64_t>()[0],
                            fmt::format("the run has {} iterations: at most {}", iterations,
                                        encode({iterations, false})));
}

state state::create(const std::filesystem::path& dir, std::uint32_t rows, std::uint32_t cols, std::uint64_t seed,
                    pm::durability mode) {
  const std::uint64_t n = std::uint64_t(rows) * cols;
  const std::uint64_t image_bytes = 2 * n * sizeof(float), noise_bytes = n * sizeof(noise_record);
  auto pool = std::make_unique<pm::pool>(
      pm::pool::create(dir / pool_name, image_bytes + noise_bytes + (1 << 20), {.mode = mode}));
  pm::region image = pool->create_region("image", image_bytes);
  pool->create_region("noise", noise_bytes);
  pm::region prog = pool->create_region("progress", 64);
  const std::vector<float> input = generate_image(rows, cols, seed);
  std::memcpy(image.data(), input.data(), n * sizeof(float));
  image.persist();
  const std::uint64_t words[3] = {encode({}), rows, cols};
  std::memcpy(prog.data(), words, sizeof words);
  prog.persist();
  return state(std::move(pool));
}

state state::open(const std::filesystem::path& dir, pm::durability mode) {
  return state(std::make_unique<pm::pool>(pm::pool::open(dir / pool_name, mode)));
}

progress state::where() const { return decode(progress_.as<std::uint64_t>()[0]); }

// The host's commit steps: one atomic word, persisted, then a crash point.
void state::commit(progress p) {
  progress_.as<std::uint64_t>()[0] = encode(p);
  progress_.persist(0, 8);
  crash_trigger::point();
}

// Ordering point 3: after step 1's kernel has ended (its end made every
// record durable), the records may be trusted by recovery.
void state::commit_coefficients(std::uint32_t iteration) { commit({iteration, true}); }
// Ordering point 4: after step 2's kernel has ended, the iteration is done.
void state::commit_iteration(std::uint32_t done) { commit({done, false}); }

std::span<const float> state::image_after(std::uint32_t iterations) const {
  const std::uint64_t n = std::uint64_t(rows_) * cols_;
  return {image_.as<float>().data() + (iterations % 2) * n, n};
}

std::span<const noise_record> state::noise() const {
  return {noise_.as<noise_record>().data(), std::uint64_t(rows_) * cols_};
}

std::uint32_t state::advance(const launch_target& ex, std::uint32_t iterations, float lambda, pm::ordering o,
                             const std::function<void(std::uint32_t)>& after_iteration,
                             bool early_coefficients_commit) {
  const std::uint64_t n = std::uint64_t(rows_) * cols_;
  const std::uint64_t threads = (n + pixels_per_thread - 1) / pixels_per_thread;
  const auto blocks = std::uint32_t((threads + block - 1) / block);
  const auto all = image_.span<float>();
  std::uint32_t ran = 0;
  for (progress p = where(); p.iterations_done < iterations; p = where(), ++ran) {
    const std::uint32_t k = p.iterations_done;
    const auto src = all.subspan((k % 2) * n, n), dst = all.subspan(((k + 1) % 2) * n, n);
    if (!p.coefficients_ready) {
      // src is never written during iteration k, so step 1 can always be redone.
      const float q0sqr = speckle_scale(image_after(k));
      if (early_coefficients_commit) commit_coefficients(k);  // the seeded bug: before step 1 has run
      ex.launch({dim3(blocks), dim3(block), 0, "srad_coefficients"}, coefficients_kernel{}, src,
                noise_.span<noise_record>(), rows_, cols_, q0sqr, o);
      if (!early_coefficients_commit) commit_coefficients(k);
    }
    ex.launch({dim3(blocks), dim3(block), 0, "srad_update"}, update_kernel{}, src, dst, noise_.span<noise_record>(),
              rows_, cols_, lambda, o);
    commit_iteration(k + 1);
    if (after_iteration) after_iteration(k + 1);
  }
  return ran;
}

std::vector<float> generate_image(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed) {
  std::vector<float> img(std::uint64_t(rows) * cols);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < cols; ++c) {
      const bool inside = r >= rows / 4 && r < rows - rows / 4 && c >= cols / 4 && c < cols - cols / 4;
      const std::uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + std::uint64_t(r) * cols + c + 1);
      const float speckle = float(h >> 40) * (1.0f / 16777216.0f);  // [0, 1)
      img[std::uint64_t(r) * cols + c] = std::exp((inside ? 0.8f : 0.2f) + 0.4f * speckle);
    }
  return img;
}

float speckle_scale(std::span<const float> image) {
  double sum = 0, sum2 = 0;
  for (float v : image) {
    sum += double(v);
    sum2 += double(v) * double(v);
  }
  const double mean = sum / double(image.size());
  const double var = sum2 / double(image.size()) - mean * mean;
  return float(var / (mean * mean));
}

reference run_reference(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed, std::uint32_t iterations,
                        float lambda) {
  reference ref;
  ref.image = generate_image(rows, cols, seed);
  const std::uint64_t n = ref.image.size();
  ref.noise.assign(n, noise_record{});
  std::vector<float> next(n);
  for (std::uint32_t k = 0; k < iterations; ++k) {
    const float q0sqr = speckle_scale(ref.image);
    const std::vector<float>& j = ref.image;
    for (std::uint64_t i = 0; i < n; ++i) {
      const neighbours nb = neighbours_of(i, rows, cols);
      ref.noise[i] = diffusion_coefficient(j[i], j[nb.n], j[nb.s], j[nb.w], j[nb.e], q0sqr);
    }
    for (std::uint64_t i = 0; i < n; ++i) {
      const neighbours nb = neighbours_of(i, rows, cols);
      next[i] = diffused_pixel(j[i], ref.noise[i], ref.noise[nb.s].c, ref.noise[nb.e].c, lambda);
    }
    ref.image.swap(next);
  }
  return ref;
}

}  // namespace gpmx::apps::srad
