#pragma once
// BLK's kernel, written once for every executor: one thread per option and
// iteration. The options' state and inputs are device memory, reached
// through global_span views.
#include <cmath>
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"
#include "iterative/kernel_math.hpp"

namespace gpmx::apps::blk {

inline constexpr float risk_free = 0.02f;
inline constexpr float volatility = 0.30f;
inline constexpr float day = 1.0f / 252.0f;  // one iteration, in years

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
  GPMX_HD void operator()(Ctx& t, std::uint64_t iteration, std::uint64_t seed, global_span<float> spot,
                          global_span<float> call, global_span<float> put, global_span<const float> strike,
                          global_span<const float> expiry) const {
    const std::uint64_t i = t.global_id();
    if (i >= spot.size()) return;
    auto sp = spot.bind(t);
    const float spot_before = sp[i], k = strike.bind(t)[i], expires = expiry.bind(t)[i];
    // A uniform shock with unit variance: the path is a pure function of
    // (seed, option, iteration), so a resumed run walks the same path.
    const float z = (iterative::unit_float(seed * 0x100000001b3ull + i, iteration) - 0.5f) * 3.4641016f;
    const float sqrt_day = sqrtf(day);
    const float s = spot_before * expf((risk_free - 0.5f * volatility * volatility) * day + volatility * sqrt_day * z);
    const float years = fmaxf(expires - float(iteration) * day, day);
    const float sqrt_t = sqrtf(years);
    const float d1 = (logf(s / k) + (risk_free + 0.5f * volatility * volatility) * years) / (volatility * sqrt_t);
    const float d2 = d1 - volatility * sqrt_t;
    const float discounted = k * expf(-risk_free * years);
    sp[i] = s;
    call.bind(t)[i] = s * cnd(d1) - discounted * cnd(d2);
    put.bind(t)[i] = discounted * cnd(-d2) - s * cnd(-d1);
  }
};

}  // namespace gpmx::apps::blk
