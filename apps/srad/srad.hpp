#pragma once
// SRAD (speckle-reducing anisotropic diffusion, Rodinia srad_v2; GPM Table 1,
// SBRP Table 2) on an image in PM. Each iteration is two kernels: step 1
// computes every pixel's noise values (derivatives, diffusion coefficient)
// and persists them; step 2 computes the new pixels from them. The image is
// double-buffered (iteration k reads buffer k % 2 and writes the other), and
// one persisted word says how many iterations are done and whether step 1 of
// the next one is complete, so a crash anywhere loses at most the step in
// flight, which recovery redoes from intact inputs.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"
#include "srad/srad_math.hpp"

namespace gpmx::apps::srad {

// Iterations done and the next one's phase: where a run stands.
struct progress {
  std::uint32_t iterations_done = 0;
  bool coefficients_ready = false;  // step 1 of iteration iterations_done is complete and durable
};

class state {
 public:
  // A pool in dir holding the generated image in buffer 0, nothing done.
  static state create(const std::filesystem::path& dir, std::uint32_t rows, std::uint32_t cols, std::uint64_t seed,
                      pm::durability mode);
  static state open(const std::filesystem::path& dir, pm::durability mode);

  // Runs (or resumes) iterations until `iterations` are done; after_iteration
  // gets the count done after each one. Returns the iterations it ran.
  // early_coefficients_commit runs the seeded bug of that name (docs/workloads.md).
  std::uint32_t advance(const launch_target& ex, std::uint32_t iterations, float lambda, pm::ordering o,
                        const std::function<void(std::uint32_t done)>& after_iteration = {},
                        bool early_coefficients_commit = false);

  progress where() const;
  // Throws pm_error(corrupt_value) when the stored image size differs from
  // the recorded parameters, or the progress word is past the run's end.
  void check_recorded(std::uint32_t rows, std::uint32_t cols, std::uint32_t iterations) const;
  std::uint32_t rows() const { return rows_; }
  std::uint32_t cols() const { return cols_; }
  // The buffer that holds the image after `iterations` iterations.
  std::span<const float> image_after(std::uint32_t iterations) const;
  // The noise values step 1 persisted last.
  std::span<const noise_record> noise() const;
  std::uint64_t bytes_persisted() const { return pool_->bytes_persisted(); }
  pm::pool& pool() { return *pool_; }
  // The raw mapping, for tests that corrupt a value on purpose.
  float* image_data() { return image_.as<float>().data(); }

 private:
  explicit state(std::unique_ptr<pm::pool> pool);
  // The host's commit steps (ordering points 3 and 4): one atomic word each.
  void commit_coefficients(std::uint32_t iteration);  // step 1 of `iteration` is durable
  void commit_iteration(std::uint32_t done);          // `done` iterations are durable
  void commit(progress p);

  std::unique_ptr<pm::pool> pool_;
  pm::region image_, noise_, progress_;
  std::uint32_t rows_ = 0, cols_ = 0;
};

// The generated input: a bright square on a dark field, with multiplicative
// speckle, as exp(intensity) like Rodinia's input; deterministic in seed.
std::vector<float> generate_image(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed);
// q0^2 of the whole image (variance over squared mean), summed sequentially
// in double precision: the same value on the host and for the kernels.
float speckle_scale(std::span<const float> image);

// The sequential host reference: the image and the last noise values after
// `iterations` iterations.
struct reference {
  std::vector<float> image;
  std::vector<noise_record> noise;
};
reference run_reference(std::uint32_t rows, std::uint32_t cols, std::uint64_t seed, std::uint32_t iterations,
                        float lambda);

}  // namespace gpmx::apps::srad
