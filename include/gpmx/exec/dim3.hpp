#pragma once
#include <cstdint>

#include "gpmx/exec/portability.hpp"

namespace gpmx {

// Grid, block and index extents, as CUDA's dim3 (unused dimensions are 1).
struct dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  constexpr GPMX_HD dim3(std::uint32_t x_ = 1, std::uint32_t y_ = 1, std::uint32_t z_ = 1)
      : x(x_), y(y_), z(z_) {}
  constexpr GPMX_HD std::uint64_t count() const {
    return std::uint64_t(x) * std::uint64_t(y) * std::uint64_t(z);
  }
  constexpr GPMX_HD bool operator==(const dim3&) const = default;
};

// Linear index of i inside extent e (x fastest), as CUDA numbers threads.
constexpr GPMX_HD std::uint64_t linearize(const dim3& i, const dim3& e) {
  return (std::uint64_t(i.z) * e.y + i.y) * e.x + i.x;
}

constexpr GPMX_HD dim3 delinearize(std::uint64_t linear, const dim3& e) {
  const auto x = std::uint32_t(linear % e.x);
  linear /= e.x;
  const auto y = std::uint32_t(linear % e.y);
  return dim3(x, y, std::uint32_t(linear / e.y));
}

}  // namespace gpmx
