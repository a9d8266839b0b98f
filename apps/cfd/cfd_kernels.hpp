#pragma once
// CFD's kernel, written once for every executor: one thread per cell and
// time step. The four conserved variables are device memory, reached through
// global_span views.
#include <cmath>
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::cfd {

inline constexpr float gamma_gas = 1.4f;

struct conserved {
  float rho, mx, my, e;
};

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

// The four fields of the grid, each anything indexable: pointers in the
// host's reference step, global_span in kernel arguments, bound views inside
// the kernel.
template <class F>
struct fields {
  F rho, mx, my, e;
  GPMX_HD conserved at(std::uint64_t i) const { return {float(rho[i]), float(mx[i]), float(my[i]), float(e[i])}; }
};

// The fields of global_span views, bound to a thread.
template <class T, class Ctx>
GPMX_HD auto bind(const fields<global_span<T>>& f, Ctx& t) -> fields<decltype(f.rho.bind(t))> {
  return {f.rho.bind(t), f.mx.bind(t), f.my.bind(t), f.e.bind(t)};
}

template <class In>
GPMX_HD inline conserved cell_update(const In& in, std::uint64_t nx, std::uint64_t ny, float kx, float ky,
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
  GPMX_HD void operator()(Ctx& t, fields<global_span<const float>> in, fields<global_span<float>> out,
                          std::uint64_t nx, std::uint64_t ny, float kx, float ky) const {
    const std::uint64_t i = t.global_id();
    if (i >= nx * ny) return;
    const conserved v = cell_update(bind(in, t), nx, ny, kx, ky, i % nx, i / nx);
    const auto o = bind(out, t);
    o.rho[i] = v.rho;
    o.mx[i] = v.mx;
    o.my[i] = v.my;
    o.e[i] = v.e;
  }
};

}  // namespace gpmx::apps::cfd
