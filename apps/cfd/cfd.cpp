#include "cfd/cfd.hpp"

#include <algorithm>
#include <cmath>

#include "iterative/kernel_math.hpp"

namespace gpmx::apps::cfd {
namespace {

GPMX_HD inline float pressure(const conserved& u) {
  return (gamma_gas - 1.0f) * (u.e - 0.5f * (u.mx * u.mx + u.my * u.my) / u.rho);
}

// The Rusanov flux through a face between left/lower state a and right/upper
// state b, along x (along_x) or y: the mean of the physical fluxes minus the
// largest wave speed times the jump. Both cells of a face call it with the
// same arguments in the same order, so they agree bitwise and the scheme
// conserves exactly what rounding allows.
GPMX_HD inline conserved rusanov(const conserved& a, const conserved& b, bool along_x) {
  const float pa = pressure(a), pb = pressure(b);
  const float va = (along_x ? a.mx : a.my) / a.rho, vb = (along_x ? b.mx : b.my) / b.rho;
  const float sa = fabsf(va) + sqrtf(gamma_gas * pa / a.rho), sb = fabsf(vb) + sqrtf(gamma_gas * pb / b.rho);
  const float s = fmaxf(sa, sb);
  conserved fa{a.rho * va, a.mx * va, a.my * va, (a.e + pa) * va};
  conserved fb{b.rho * vb, b.mx * vb, b.my * vb, (b.e + pb) * vb};
  if (along_x) {
    fa.mx += pa;
    fb.mx += pb;
  } else {
    fa.my += pa;
    fb.my += pb;
  }
  return {0.5f * (fa.rho + fb.rho) - 0.5f * s * (b.rho - a.rho), 0.5f * (fa.mx + fb.mx) - 0.5f * s * (b.mx - a.mx),
          0.5f * (fa.my + fb.my) - 0.5f * s * (b.my - a.my), 0.5f * (fa.e + fb.e) - 0.5f * s * (b.e - a.e)};
}

struct grid_in {
  const float *rho, *mx, *my, *e;
  GPMX_HD conserved at(std::uint64_t i) const { return {rho[i], mx[i], my[i], e[i]}; }
};
struct grid_out {
  float *rho, *mx, *my, *e;
};

GPMX_HD inline conserved cell_update(grid_in in, std::uint64_t nx, std::uint64_t ny, float kx, float ky,
                                     std::uint64_t x, std::uint64_t y) {
  const conserved u = in.at(y * nx + x);
  const conserved w = in.at(y * nx + (x + nx - 1) % nx), east = in.at(y * nx + (x + 1) % nx);
  const conserved s = in.at(((y + ny - 1) % ny) * nx + x), n = in.at(((y + 1) % ny) * nx + x);
  const conserved fe = rusanov(u, east, true), fw = rusanov(w, u, true);
  const conserved gn = rusanov(u, n, false), gs = rusanov(s, u, false);
  return {u.rho - kx * (fe.rho - fw.rho) - ky * (gn.rho - gs.rho), u.mx - kx * (fe.mx - fw.mx) - ky * (gn.mx - gs.mx),
          u.my - kx * (fe.my - fw.my) - ky * (gn.my - gs.my), u.e - kx * (fe.e - fw.e) - ky * (gn.e - gs.e)};
}

struct cfd_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, grid_in in, grid_out out, std::uint64_t nx, std::uint64_t ny, float kx,
                          float ky) const {
    const std::uint64_t i = t.global_id();
    if (i >= nx * ny) return;
    const conserved v = cell_update(in, nx, ny, kx, ky, i % nx, i / nx);
    out.rho[i] = v.rho;
    out.mx[i] = v.mx;
    out.my[i] = v.my;
    out.e[i] = v.e;
  }
};

}  // namespace

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

void cfd_app::step(cpu::executor& ex, std::uint64_t) {
  constexpr std::uint32_t block = 256;
  const launch_config cfg{dim3(std::uint32_t((nx * ny + block - 1) / block)), dim3(block), 0, "cfd_step"};
  ex.launch(cfg, cfd_kernel{}, grid_in{rho.data(), mx.data(), my.data(), e.data()},
            grid_out{s_rho.data(), s_mx.data(), s_my.data(), s_e.data()}, nx, ny, dt_over_dx, dt_over_dy);
  ex.launch(cfg, cfd_kernel{}, grid_in{s_rho.data(), s_mx.data(), s_my.data(), s_e.data()},
            grid_out{rho.data(), mx.data(), my.data(), e.data()}, nx, ny, dt_over_dx, dt_over_dy);
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
  const grid_in g{in[0].data(), in[1].data(), in[2].data(), in[3].data()};
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
