#include "blk/blk.hpp"

#include <cmath>

#include "iterative/kernel_math.hpp"

namespace gpmx::apps::blk {
namespace {

using iterative::unit_float;

// The cumulative normal distribution, Abramowitz and Stegun 26.2.17 (what
// GPU Black-Scholes codes use): about 7 digits, no erf on the device.
GPMX_HD inline float cnd(float d) {
  const float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  const float poly =
      k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  const float c = 0.39894228040143267794f * expf(-0.5f * d * d) * poly;
  return d > 0 ? 1.0f - c : c;
}

// One option, one iteration: a day of the underlying, then its prices.
struct blk_step {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint64_t n, std::uint64_t iteration, std::uint64_t seed, float* spot,
                          float* call, float* put, const float* strike, const float* expiry) const {
    const std::uint64_t i = t.global_id();
    if (i >= n) return;
    // A uniform shock with unit variance: the path is a pure function of
    // (seed, option, iteration), so a resumed run walks the same path.
    const float z = (unit_float(seed * 0x100000001b3ull + i, iteration) - 0.5f) * 3.4641016f;
    const float sqrt_day = sqrtf(day);
    const float s = spot[i] * expf((risk_free - 0.5f * volatility * volatility) * day + volatility * sqrt_day * z);
    const float years = fmaxf(expiry[i] - float(iteration) * day, day);
    const float sqrt_t = sqrtf(years);
    const float d1 = (logf(s / strike[i]) + (risk_free + 0.5f * volatility * volatility) * years) / (volatility * sqrt_t);
    const float d2 = d1 - volatility * sqrt_t;
    const float discounted = strike[i] * expf(-risk_free * years);
    spot[i] = s;
    call[i] = s * cnd(d1) - discounted * cnd(d2);
    put[i] = discounted * cnd(-d2) - s * cnd(-d1);
  }
};

}  // namespace

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

void blk_app::step(cpu::executor& ex, std::uint64_t iteration) {
  constexpr std::uint32_t block = 256;
  const std::uint64_t n = spot.size();
  ex.launch({dim3(std::uint32_t((n + block - 1) / block)), dim3(block), 0, "blk_step"}, blk_step{}, n, iteration,
            seed, spot.data(), call.data(), put.data(), static_cast<const float*>(strike.data()),
            static_cast<const float*>(expiry.data()));
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
