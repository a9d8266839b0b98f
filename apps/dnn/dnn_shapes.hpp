#pragma once
// The network's shape: LeNet's pattern at a size the CPU trains in seconds.
// 1x16x16 image -> conv 5x5, 6 channels, ReLU -> 6x12x12 -> max pool 2x2 ->
// 6x6x6 = 216 -> fully connected 32, ReLU -> fully connected 4 -> softmax.
#include <cstdint>

namespace gpmx::apps::dnn {

inline constexpr std::uint32_t image_side = 16, image_pixels = image_side * image_side;
inline constexpr std::uint32_t classes = 4;
inline constexpr std::uint32_t channels = 6, kernel_side = 5, kernel_taps = kernel_side * kernel_side;
inline constexpr std::uint32_t conv_side = image_side - kernel_side + 1;  // 12
inline constexpr std::uint32_t conv_outputs = channels * conv_side * conv_side;  // per image
inline constexpr std::uint32_t pool_side = conv_side / 2;  // 6
inline constexpr std::uint32_t features = channels * pool_side * pool_side;  // 216
inline constexpr std::uint32_t hidden = 32;

}  // namespace gpmx::apps::dnn
