#pragma once
// SRAD's two kernels, a thread per pixels_per_thread pixels, written once for every executor.
// Ordering points 1 and 2 are the named functions below; 3 and 4 are the
// host's commit steps (srad.cpp: commit_coefficients, commit_iteration).
#include <cstdint>

#include "gpmx/exec/portability.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/view.hpp"
#include "srad/srad_math.hpp"

namespace gpmx::apps::srad {

// Consecutive pixels per thread (thread coarsening): a thread's 16 pixels
// fill one 64-byte line and its 16 noise records 8 lines of one page, so its
// persist is one flush instead of sixteen.
inline constexpr std::uint32_t pixels_per_thread = 16;

// Ordering point 1: a thread's noise values persist before anything it
// stores later. epoch: GPM's per-thread persist barrier, durable at once.
// sbrp: nothing to order inside the thread (records are its only stores in
// this kernel); the kernel's end makes the buffered records durable before
// the host commits the phase.
template <class Ctx>
GPMX_HD void persist_noise_values(Ctx& t, pm::ordering o) {
  if (o == pm::ordering::epoch) t.gpm_persist();
}

// Ordering point 2: the updated pixel persists; the same reasoning as above
// (the kernel's end precedes the host's iteration commit).
template <class Ctx>
GPMX_HD void persist_pixel(Ctx& t, pm::ordering o) {
  if (o == pm::ordering::epoch) t.gpm_persist();
}

// Step 1: derivatives and diffusion coefficient of every pixel of src.
struct coefficients_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<float> src, pm::pm_span<noise_record> noise, std::uint32_t rows,
                          std::uint32_t cols, float q0sqr, pm::ordering o) const {
    const std::uint64_t n = std::uint64_t(rows) * cols, first = t.global_id() * pixels_per_thread;
    if (first >= n) return;
    const auto img = src.bind(t);
    const auto nv = noise.bind(t);
    for (std::uint64_t i = first; i < first + pixels_per_thread && i < n; ++i) {
      const neighbours nb = neighbours_of(i, rows, cols);
      nv[i] = diffusion_coefficient(img[i], img[nb.n], img[nb.s], img[nb.w], img[nb.e], q0sqr);
    }
    persist_noise_values(t, o);
  }
};

// Step 2: every pixel of dst from src and the persisted noise values (its
// own, and the coefficients of its south and east neighbours).
struct update_kernel {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, pm::pm_span<float> src, pm::pm_span<float> dst, pm::pm_span<noise_record> noise,
                          std::uint32_t rows, std::uint32_t cols, float lambda, pm::ordering o) const {
    const std::uint64_t n = std::uint64_t(rows) * cols, first = t.global_id() * pixels_per_thread;
    if (first >= n) return;
    const auto nv = noise.bind(t);
    const auto in = src.bind(t);
    const auto out = dst.bind(t);
    for (std::uint64_t i = first; i < first + pixels_per_thread && i < n; ++i) {
      const neighbours nb = neighbours_of(i, rows, cols);
      const noise_record self = nv[i];
      const noise_record south = nv[nb.s];
      const noise_record east = nv[nb.e];
      out[i] = diffused_pixel(in[i], self, south.c, east.c, lambda);
    }
    persist_pixel(t, o);
  }
};

}  // namespace gpmx::apps::srad
