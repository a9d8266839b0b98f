#pragma once
// BLK (GPM section 4.2): Black-Scholes pricing of many European options,
// iterated: each iteration moves every option's underlying by one trading
// day (a deterministic pseudo-random shock) and prices its call and put
// again. The checkpointed state is the spot prices and the predicted prices.
#include <cstdint>
#include <vector>

#include "blk/blk_kernels.hpp"  // risk_free, volatility, day
#include "iterative/iterative.hpp"

namespace gpmx::apps::blk {

class blk_app final : public iterative::app {
 public:
  blk_app(std::uint64_t options, std::uint64_t seed);
  std::vector<iterative::state_array> state() override;
  void step(const launch_target& ex, std::uint64_t iteration) override;
  std::uint64_t operations_per_iteration() const override { return spot.size(); }

  // Years to expiry at an iteration (never below one day).
  float expiry_at(std::uint64_t option, std::uint64_t iteration) const;

  std::uint64_t seed;
  kernel_vector<float> strike, expiry;  // inputs, from the seed
  kernel_vector<float> spot, call, put;  // the state
};

// Black-Scholes in double precision with the exact normal distribution
// (erfc), for the tests: {call, put}.
struct prices {
  double call, put;
};
prices black_scholes_reference(double spot, double strike, double years, double rate, double vol);

}  // namespace gpmx::apps::blk
