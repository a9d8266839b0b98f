#pragma once
// HS (GPM section 4.2, Rodinia's HotSpot): the temperature of a chip's grid
// of cells under a power map, stepped by the explicit finite-difference
// update of the heat equation. An iteration is two time steps (temperature
// to scratch and back), so the state is always in one array: the
// checkpointed temperatures.
#include <cstdint>
#include <span>
#include <vector>

#include "hotspot/hotspot_kernels.hpp"  // coefficients
#include "iterative/iterative.hpp"

namespace gpmx::apps::hotspot {

// The chip's thermal constants for a rows x cols grid (Rodinia's model).
coefficients coefficients_for(std::uint64_t rows, std::uint64_t cols);

class hotspot_app final : public iterative::app {
 public:
  hotspot_app(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed);
  std::vector<iterative::state_array> state() override;
  void step(const launch_target& ex, std::uint64_t iteration) override;
  std::uint64_t operations_per_iteration() const override { return 2 * temp.size(); }

  std::uint64_t rows, cols;
  coefficients c;
  kernel_vector<float> power;         // input, from the seed
  kernel_vector<float> temp, scratch;  // temp is the state
};

// One time step on the host (the tests' reference): out from in.
void reference_step(const coefficients& c, std::uint64_t rows, std::uint64_t cols, std::span<const float> power,
                    const std::vector<float>& in, std::vector<float>& out);

}  // namespace gpmx::apps::hotspot
