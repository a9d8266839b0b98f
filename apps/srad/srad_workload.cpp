// SRAD as a workload (`gpmx run srad`): iterations of two-step anisotropic
// diffusion on a generated image in PM; recovery resumes from the persisted
// iteration count (and step 1's noise values when they were complete); the
// check compares image and noise values bitwise with a sequential host run.
#include <bit>
#include <chrono>
#include <fmt/format.h>

#include "common/run_meta.hpp"
#include "common/workload.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/elapsed.hpp"
#include "srad/srad.hpp"

namespace gpmx::apps {
namespace {

using clock_type = std::chrono::steady_clock;

constexpr const char* early_coefficients_commit = "early-coefficients-commit";

struct srad_shape {
  std::uint32_t rows, cols, iterations;
  float lambda;
  std::uint64_t seed;
};

srad_shape shape_of(const params& p) {
  const std::uint64_t rows = p.at("rows"), cols = p.at("cols"), iters = p.at("iterations"), l = p.at("lambda_percent");
  if (rows == 0 || rows > (1u << 16)) throw config_error(fmt::format("srad: rows={} must be 1 to 65536", rows));
  if (cols == 0 || cols > (1u << 16)) throw config_error(fmt::format("srad: cols={} must be 1 to 65536", cols));
  if (rows * cols > (1u << 26)) throw config_error(fmt::format("srad: rows x cols = {} exceeds 2^26 pixels", rows * cols));
  if (iters == 0 || iters > 100000) throw config_error(fmt::format("srad: iterations={} must be 1 to 100000", iters));
  if (l == 0 || l > 100) throw config_error(fmt::format("srad: lambda_percent={} must be 1 to 100", l));
  return {std::uint32_t(rows), std::uint32_t(cols), std::uint32_t(iters), float(l) / 100.0f, p.at("seed")};
}

constexpr const char* pool_file = "srad.pool";

class srad_workload final : public workload {
 public:
  std::string_view name() const override { return "srad"; }
  std::string_view summary() const override {
    return "speckle-reducing anisotropic diffusion; noise values persisted before each pixel (GPM Table 1, SBRP Table 2)";
  }
  std::vector<param_spec> parameters() const override {
    return {{"rows", 128, "image rows"},
            {"cols", 128, "image columns"},
            {"iterations", 6, "diffusion iterations"},
            {"lambda_percent", 50, "update step lambda, in hundredths (Rodinia's 0.5 is 50)"},
            {"seed", 1, "seed of the generated image"}};
  }
  params small_params() const override {
    return {{"rows", 16}, {"cols", 16}, {"iterations", 3}, {"lambda_percent", 50}, {"seed", 1}};
  }

  std::vector<seeded_bug> seeded_bugs() const override {
    return {{early_coefficients_commit,
             "the host commits \"coefficients ready\" (stores and persists the progress word) when it launches step "
             "1 instead of after step 1's kernel has ended, so recovery can trust noise records not yet written",
             style::epoch, "epoch"}};
  }

  run_report run(const env& e, const params& p, style st) override {
    const srad_shape s = shape_of(p);
    (void)requested_bug(*this, e, st);
    const bool early = e.has_bug(early_coefficients_commit);
    fresh_directory(e.dir);
    auto img = srad::state::create(e.dir, s.rows, s.cols, s.seed, e.mode);
    write_meta(img.pool(), name(), st, p);
    run_report r;
    r.unit = "pixel updates";
    const std::uint64_t before = img.bytes_persisted();
    const auto start = clock_type::now();
    r.batches = img.advance(
        e.ex, s.iterations, s.lambda, st, [&](std::uint32_t done) { e.report(double(done) / s.iterations); }, early);
    r.seconds = seconds_since(start);
    r.operations = r.batches * std::uint64_t(s.rows) * s.cols;
    r.bytes_persisted = img.bytes_persisted() - before;
    return r;
  }

  recover_report recover(const env& e) override {
    require_file(e.dir, pool_file, name());
    auto img = srad::state::open(e.dir, e.mode);
    const run_meta m = read_meta(img.pool(), *this);
    const srad_shape s = check_recorded(img.pool(), [&] { return shape_of(m.p); });
    img.check_recorded(s.rows, s.cols, s.iterations);
    const srad::progress at = img.where();
    const auto start = clock_type::now();
    const std::uint32_t ran = img.advance(e.ex, s.iterations, s.lambda, m.s);
    recover_report r;
    r.seconds = seconds_since(start);
    r.repaired = ran > 0;
    r.what = !r.repaired ? fmt::format("all {} iterations were done", s.iterations)
             : fmt::format("resumed at iteration {} ({}), ran {} iterations to finish all {}", at.iterations_done,
                           at.coefficients_ready ? "from its persisted noise values" : "from its input image", ran,
                           s.iterations);
    return r;
  }

  verify_report verify(const env& e) override {
    require_file(e.dir, pool_file, name());
    auto img = srad::state::open(e.dir, e.mode);
    const run_meta m = read_meta(img.pool(), *this);
    const srad_shape s = check_recorded(img.pool(), [&] { return shape_of(m.p); });
    img.check_recorded(s.rows, s.cols, s.iterations);
    verify_report v;
    const srad::progress at = img.where();
    if (at.iterations_done < s.iterations) {
      v.detail = fmt::format("{} of {} iterations done: recover first", at.iterations_done, s.iterations);
      return v;
    }
    const srad::reference ref = srad::run_reference(s.rows, s.cols, s.seed, s.iterations, s.lambda);
    // Bitwise: kernels and reference evaluate the same float expressions
    // (srad_math.hpp) in the same order, and q0^2 is summed on the host.
    const auto image = img.image_after(s.iterations);
    for (std::size_t i = 0; i < ref.image.size(); ++i)
      if (std::bit_cast<std::uint32_t>(image[i]) != std::bit_cast<std::uint32_t>(ref.image[i])) {
        v.detail = fmt::format("pixel ({}, {}) is {:.9g}; the host reference after {} iterations has {:.9g}",
                               i / s.cols, i % s.cols, image[i], s.iterations, ref.image[i]);
        return v;
      }
    const auto noise = img.noise();
    for (std::size_t i = 0; i < ref.noise.size(); ++i) {
      const float got[5] = {noise[i].dn, noise[i].ds, noise[i].dw, noise[i].de, noise[i].c};
      const float want[5] = {ref.noise[i].dn, ref.noise[i].ds, ref.noise[i].dw, ref.noise[i].de, ref.noise[i].c};
      for (int f = 0; f < 5; ++f)
        if (std::bit_cast<std::uint32_t>(got[f]) != std::bit_cast<std::uint32_t>(want[f])) {
          v.detail = fmt::format("noise value {} of pixel ({}, {}) is {:.9g}; the host reference has {:.9g}",
                                 "NSWEc"[f], i / s.cols, i % s.cols, got[f], want[f]);
          return v;
        }
    }
    v.ok = true;
    v.checked = ref.image.size() * 2;
    v.detail = fmt::format("{} pixels and their noise values after {} iterations equal the host reference bitwise",
                           ref.image.size(), s.iterations);
    return v;
  }
};

}  // namespace

std::unique_ptr<workload> make_srad_workload() { return std::make_unique<srad_workload>(); }

}  // namespace gpmx::apps
