#pragma once
// HotSpot's kernel, written once for every executor: one thread per cell
// and time step. The power map and the temperatures are device memory,
// reached through global_span views.
#include <cstdint>

#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::hotspot {

// The chip's thermal constants for a rows x cols grid (Rodinia's model).
struct coefficients {
  float step_over_cap, rx_inv, ry_inv, rz_inv, ambient;
};

// One cell: its neighbours (clamped at the chip's edge), its power and the
// ambient through the package set the change of its temperature. power and
// in are anything indexable: pointers in the host's reference step, bound
// views in the kernel (the same float expressions either way).
template <class Power, class Temps>
GPMX_HD inline float cell_update(const coefficients& c, std::uint64_t rows, std::uint64_t cols, const Power& power,
                                 const Temps& in, std::uint64_t r, std::uint64_t col) {
  const std::uint64_t i = r * cols + col;
  const float t = in[i];
  const float n = in[(r > 0 ? r - 1 : r) * cols + col];
  const float s = in[(r + 1 < rows ? r + 1 : r) * cols + col];
  const float w = in[r * cols + (col > 0 ? col - 1 : col)];
  const float e = in[r * cols + (col + 1 < cols ? col + 1 : col)];
  const float p = power[i];
  return t + c.step_over_cap *
                 (p + (n + s - 2.0f * t) * c.ry_inv + (e + w - 2.0f * t) * c.rx_inv + (c.ambient - t) * c.rz_inv);
}

struct hotspot_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, coefficients c, std::uint64_t rows, std::uint64_t cols,
                          global_span<const float> power, global_span<const float> in,
                          global_span<float> out) const {
    const std::uint64_t i = t.global_id();
    if (i >= rows * cols) return;
    out.bind(t)[i] = cell_update(c, rows, cols, power.bind(t), in.bind(t), i / cols, i % cols);
  }
};

}  // namespace gpmx::apps::hotspot
