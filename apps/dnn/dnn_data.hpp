#pragma once
// The synthetic labelled image set, made by the program from a seed (nothing
// is downloaded): class 0 a horizontal bar, 1 a vertical bar, 2 a diagonal,
// 3 an anti-diagonal, each at a random offset, over noise.
#include <cstdint>
#include <vector>

#include "gpmx/exec/kernel_memory.hpp"

namespace gpmx::apps::dnn {

struct image_set {
  kernel_vector<float> pixels;          // images x image_pixels
  kernel_vector<std::uint32_t> labels;  // images
  std::uint64_t size() const { return labels.size(); }
};

image_set make_image_set(std::uint64_t images, std::uint64_t seed);

}  // namespace gpmx::apps::dnn
