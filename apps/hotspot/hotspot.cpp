#include "hotspot/hotspot.hpp"

#include "hotspot/hotspot_kernels.hpp"
#include "iterative/kernel_math.hpp"

namespace gpmx::apps::hotspot {
coefficients coefficients_for(std::uint64_t rows, std::uint64_t cols) {
  // Rodinia's chip: 16 mm square, 0.5 mm thick, silicon.
  constexpr double chip = 0.016, thickness = 0.0005, k_si = 100.0, spec_heat = 1.75e6, factor = 0.5;
  constexpr double max_power_density = 3.0e6, precision = 0.001;
  const double h = chip / double(rows), w = chip / double(cols);
  const double cap = factor * spec_heat * thickness * w * h;
  const double rx = w / (2.0 * k_si * thickness * h), ry = h / (2.0 * k_si * thickness * w);
  const double rz = thickness / (k_si * h * w);
  const double step = precision / (max_power_density / (factor * thickness * spec_heat));
  return {float(step / cap), float(1.0 / rx), float(1.0 / ry), float(1.0 / rz), 80.0f};
}

hotspot_app::hotspot_app(std::uint64_t r, std::uint64_t c_, std::uint64_t seed)
    : rows(r), cols(c_), c(coefficients_for(r, c_)), power(r * c_), temp(r * c_), scratch(r * c_) {
  // A few hot blocks on a cool background; the chip starts near ambient.
  const double cell_area = (0.016 / double(rows)) * (0.016 / double(cols));
  for (std::uint64_t i = 0; i < rows * cols; ++i) {
    const std::uint64_t br = (i / cols) * 8 / rows, bc = (i % cols) * 8 / cols;
    const bool hot = iterative::unit_float(seed, br * 8 + bc) < 0.25f;
    power[i] = float((hot ? 2.0e5 : 2.0e4) * cell_area * 1e2 * (0.5 + double(iterative::unit_float(seed + 1, i))));
    temp[i] = 320.0f + 5.0f * iterative::unit_float(seed + 2, i);
  }
}

std::vector<iterative::state_array> hotspot_app::state() { return {{"temperature", temp.data(), temp.size()}}; }

void hotspot_app::step(const launch_target& ex, std::uint64_t) {
  constexpr std::uint32_t block = 256;
  const auto blocks = dim3(std::uint32_t((temp.size() + block - 1) / block));
  const global_span<const float> p(power.data(), power.size());
  ex.launch({blocks, dim3(block), 0, "hotspot_step"}, hotspot_kernel{}, c, rows, cols, p,
            global_span<const float>(temp.data(), temp.size()), global_span<float>(scratch.data(), scratch.size()));
  ex.launch({blocks, dim3(block), 0, "hotspot_step"}, hotspot_kernel{}, c, rows, cols, p,
            global_span<const float>(scratch.data(), scratch.size()), global_span<float>(temp.data(), temp.size()));
}

void reference_step(const coefficients& c, std::uint64_t rows, std::uint64_t cols, std::span<const float> power,
                    const std::vector<float>& in, std::vector<float>& out) {
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t col = 0; col < cols; ++col)
      out[r * cols + col] = cell_update(c, rows, cols, power.data(), in.data(), r, col);
}

}  // namespace gpmx::apps::hotspot
