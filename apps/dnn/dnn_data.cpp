#include "dnn/dnn_data.hpp"

#include "dnn/dnn_shapes.hpp"
#include "iterative/kernel_math.hpp"

namespace gpmx::apps::dnn {

image_set make_image_set(std::uint64_t images, std::uint64_t seed) {
  using iterative::unit_float;
  image_set s;
  s.pixels.resize(images * image_pixels);
  s.labels.resize(images);
  const int side = int(image_side);
  for (std::uint64_t n = 0; n < images; ++n) {
    const auto label = std::uint32_t(iterative::mix64(seed * 977 + n) % classes);
    const int offset = int(unit_float(seed + n, 1) * float(side - 4)) + 2;  // 2 .. side-3
    s.labels[n] = label;
    float* img = &s.pixels[n * image_pixels];
    for (int y = 0; y < side; ++y)
      for (int x = 0; x < side; ++x) {
        bool on = false;
        switch (label) {
          case 0: on = y == offset || y == offset + 1; break;
          case 1: on = x == offset || x == offset + 1; break;
          case 2: on = x - y == offset - side / 2; break;
          default: on = x + y == offset + side / 2; break;
        }
        const float noise = 0.3f * unit_float(seed * 31 + n, std::uint64_t(y * side + x) + 7);
        img[y * side + x] = (on ? 1.0f : 0.0f) + noise;
      }
  }
  return s;
}

}  // namespace gpmx::apps::dnn
