#include "cfd/cfd.hpp"

#include <algorithm>
#include <cmath>

#include "cfd/cfd_kernels.hpp"
#include "iterative/kernel_math.hpp"

namespace gpmx::apps::cfd {
cfd_app::cfd_app(std::uint64_t x, std::uint64_t y, std::uint64_t seed)
    : nx(x), ny(y), rho(x * y), mx(x * y), my(x * y), e(x * y), s_rho(x * y), s_mx(x * y), s_my(x * y), s_e(x * y) {
  // A uniform drift carrying a few high-pressure, dense bubbles (their
  // places from the seed): blast waves that cross and wrap around.
  float cx[3], cy[3];
  for (int b = 0; b < 3; ++b) {
    cx[b] = iterative::unit_float(seed, 2 * b);
    cy[b] = iterative::unit_float(seed, 2 * b + 1);
  }
  float fastest = 0;
  for (std::uint64_t j = 0; j < ny; ++j)
    for (std::uint64_t i = 0; i < nx; ++i) {
      const float px = (float(i) + 0.5f) / float(nx), py = (float(j) + 0.5f) / float(ny);
      float bump = 0;
      for (int b = 0; b < 3; ++b) {
        const float dx = std::fabs(px - cx[b]), dy = std::fabs(py - cy[b]);
        const float ddx = std::min(dx, 1 - dx), ddy = std::min(dy, 1 - dy);
        bump += std::exp(-(ddx * ddx + ddy * ddy) / 0.004f);
      }
      const float r = 1.0f + 0.5f * bump, p = 1.0f + bump, u = 0.5f, v = 0.25f;
      const std::uint64_t k = j * nx + i;
      rho[k] = r;
      mx[k] = r * u;
      my[k] = r * v;
      e[k] = p / (gamma_gas - 1.0f) + 0.5f * r * (u * u + v * v);
      fastest = std::max(fastest, std::sqrt(u * u + v * v) + std::sqrt(gamma_gas * p / r));
    }
  // A fixed step (no reduction per step, so every run takes the same steps),
  // with room for the waves to speed up: CFL 0.2 at 1.5x the initial speed.
  const float dt = 0.2f * std::min(1.0f / float(nx), 1.0f / float(ny)) / (1.5f * fastest);
  dt_over_dx = dt * float(nx);
  dt_over_dy = dt * float(ny);
}

std::vector<iterative::state_array> cfd_app::state() {
  return {{"density", rho.data(), rho.size()},
          {"momentum_x", mx.data(), mx.size()},
          {"momentum_y", my.data(), my.size()},
          {"energy", e.data(), e.size()}};
}

void cfd_app::step(const launch_target& ex, std::uint64_t) {
  constexpr std::uint32_t block = 256;
  const launch_config cfg{dim3(std::uint32_t((nx * ny + block - 1) / block)), dim3(block), 0, "cfd_step"};
  const std::uint64_t n = nx * ny;
  using in_span = global_span<const float>;
  using out_span = global_span<float>;
  const fields<in_span> state_in{in_span(rho.data(), n), in_span(mx.data(), n), in_span(my.data(), n),
                                 in_span(e.data(), n)};
  const fields<out_span> state_out{out_span(rho.data(), n), out_span(mx.data(), n), out_span(my.data(), n),
                                   out_span(e.data(), n)};
  const fields<in_span> scratch_in{in_span(s_rho.data(), n), in_span(s_mx.data(), n), in_span(s_my.data(), n),
                                   in_span(s_e.data(), n)};
  const fields<out_span> scratch_out{out_span(s_rho.data(), n), out_span(s_mx.data(), n), out_span(s_my.data(), n),
                                     out_span(s_e.data(), n)};
  ex.launch(cfg, cfd_kernel{}, state_in, scratch_out, nx, ny, dt_over_dx, dt_over_dy);
  ex.launch(cfg, cfd_kernel{}, scratch_in, state_out, nx, ny, dt_over_dx, dt_over_dy);
}

std::array<double, 4> cfd_app::totals() const {
  std::array<double, 4> t{};
  for (std::uint64_t k = 0; k < rho.size(); ++k) {
    t[0] += double(rho[k]);
    t[1] += double(mx[k]);
    t[2] += double(my[k]);
    t[3] += double(e[k]);
  }
  return t;
}

void reference_step(const cfd_app& a, const std::vector<float>* in, std::vector<float>* out) {
  const fields<const float*> g{in[0].data(), in[1].data(), in[2].data(), in[3].data()};
  for (std::uint64_t y = 0; y < a.ny; ++y)
    for (std::uint64_t x = 0; x < a.nx; ++x) {
      const conserved v = cell_update(g, a.nx, a.ny, a.dt_over_dx, a.dt_over_dy, x, y);
      const std::uint64_t k = y * a.nx + x;
      out[0][k] = v.rho;
      out[1][k] = v.mx;
      out[2][k] = v.my;
      out[3][k] = v.e;
    }
}

}  // namespace gpmx::apps::cfd
