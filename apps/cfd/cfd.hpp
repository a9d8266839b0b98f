#pragma once
// CFD (GPM section 4.2; Rodinia's cfd solves the 3-D Euler equations on an
// unstructured mesh): here a compact structured-grid finite-volume solver of
// the 2-D compressible Euler equations (density, x and y momentum, total
// energy) with Rusanov (local Lax-Friedrichs) fluxes, periodic boundaries and
// a fixed time step. An iteration is two time steps (state to scratch and
// back); the checkpointed state is the four conserved variables.
#include <array>
#include <cstdint>
#include <vector>

#include "cfd/cfd_kernels.hpp"  // gamma_gas, conserved
#include "iterative/iterative.hpp"

namespace gpmx::apps::cfd {

class cfd_app final : public iterative::app {
 public:
  cfd_app(std::uint64_t nx, std::uint64_t ny, std::uint64_t seed);
  std::vector<iterative::state_array> state() override;
  void step(const launch_target& ex, std::uint64_t iteration) override;
  std::uint64_t operations_per_iteration() const override { return 2 * nx * ny; }

  // The conserved totals over the grid (mass, momenta, energy), in double:
  // periodic finite volumes keep them up to rounding.
  std::array<double, 4> totals() const;

  std::uint64_t nx, ny;
  float dt_over_dx, dt_over_dy;
  kernel_vector<float> rho, mx, my, e;  // the state
  kernel_vector<float> s_rho, s_mx, s_my, s_e;  // scratch
};

// One time step on the host (the tests' reference), out from in (rho, mx, my, e each).
void reference_step(const cfd_app& a, const std::vector<float>* in, std::vector<float>* out);

}  // namespace gpmx::apps::cfd
