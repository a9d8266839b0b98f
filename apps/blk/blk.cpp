#include "blk/blk.hpp"

#include <cmath>

#include "blk/blk_kernels.hpp"
#include "iterative/kernel_math.hpp"

namespace gpmx::apps::blk {

using iterative::unit_float;

blk_app::blk_app(std::uint64_t options, std::uint64_t s)
    : seed(s), strike(options), expiry(options), spot(options), call(options), put(options) {
  for (std::uint64_t i = 0; i < options; ++i) {
    spot[i] = 5.0f + 25.0f * unit_float(seed, 3 * i);
    strike[i] = 1.0f + 99.0f * unit_float(seed, 3 * i + 1);
    expiry[i] = 0.25f + 9.75f * unit_float(seed, 3 * i + 2);
  }
}

std::vector<iterative::state_array> blk_app::state() {
  return {{"spot", spot.data(), spot.size()}, {"call", call.data(), call.size()}, {"put", put.data(), put.size()}};
}

void blk_app::step(const launch_target& ex, std::uint64_t iteration) {
  constexpr std::uint32_t block = 256;
  const std::uint64_t n = spot.size();
  ex.launch({dim3(std::uint32_t((n + block - 1) / block)), dim3(block), 0, "blk_step"}, blk_step{}, iteration, seed,
            global_span<float>(spot.data(), n), global_span<float>(call.data(), n), global_span<float>(put.data(), n),
            global_span<const float>(strike.data(), n), global_span<const float>(expiry.data(), n));
}

float blk_app::expiry_at(std::uint64_t option, std::uint64_t iteration) const {
  return std::fmax(expiry[option] - float(iteration) * day, day);
}

prices black_scholes_reference(double s, double k, double t, double r, double v) {
  const double d1 = (std::log(s / k) + (r + 0.5 * v * v) * t) / (v * std::sqrt(t));
  const double d2 = d1 - v * std::sqrt(t);
  auto n = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const double disc = k * std::exp(-r * t);
  return {s * n(d1) - disc * n(d2), disc * n(-d2) - s * n(-d1)};
}

}  // namespace gpmx::apps::blk
