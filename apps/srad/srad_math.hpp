#pragma once
// The per-pixel arithmetic of SRAD (Rodinia srad_v2), shared by the kernels
// and the sequential host reference so that both evaluate the very same
// float expressions in the same order: the check can then be bitwise.
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::srad {

// Step 1's output for one pixel (the "noise values"): the four directional
// derivatives and the diffusion coefficient. 32 bytes, so two records share
// a 64-byte line and none straddles one.
struct noise_record {
  float dn, ds, dw, de;  // north, south, west, east neighbour minus the pixel
  float c;               // diffusion coefficient, clamped to [0, 1]
  float unused[3];
};
static_assert(sizeof(noise_record) == 32);

// Step 1: the derivatives and coefficient of a pixel jc from its four
// neighbours (edge pixels repeat themselves) and the image's speckle scale q0sqr.
GPMX_HD inline noise_record diffusion_coefficient(float jc, float jn, float js, float jw, float je, float q0sqr) {
  noise_record r{};
  r.dn = jn - jc;
  r.ds = js - jc;
  r.dw = jw - jc;
  r.de = je - jc;
  const float g2 = (r.dn * r.dn + r.ds * r.ds + r.dw * r.dw + r.de * r.de) / (jc * jc);
  const float l = (r.dn + r.ds + r.dw + r.de) / jc;
  const float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  const float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  if (c < 0.0f) c = 0.0f;
  else if (c > 1.0f) c = 1.0f;
  r.c = c;
  return r;
}

// Step 2: the pixel after one iteration, from its own record and the
// coefficients of its south and east neighbours (Rodinia's srad_cuda_2).
GPMX_HD inline float diffused_pixel(float jc, const noise_record& self, float c_south, float c_east, float lambda) {
  const float d = self.c * self.dn + c_south * self.ds + self.c * self.dw + c_east * self.de;
  return jc + 0.25f * lambda * d;
}

// Neighbour indices with Rodinia's clamping at the image's edges.
struct neighbours {
  std::uint64_t n, s, w, e;
};
GPMX_HD inline neighbours neighbours_of(std::uint64_t i, std::uint32_t rows, std::uint32_t cols) {
  const std::uint64_t r = i / cols, c = i % cols;
  const std::uint64_t rn = r == 0 ? 0 : r - 1, rs = r + 1 == rows ? r : r + 1;
  const std::uint64_t cw = c == 0 ? 0 : c - 1, ce = c + 1 == cols ? c : c + 1;
  return {rn * cols + c, rs * cols + c, r * cols + cw, r * cols + ce};
}

}  // namespace gpmx::apps::srad
