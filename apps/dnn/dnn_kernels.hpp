#pragma once
// The network's kernels, one thread per output value. Every sum runs in a
// fixed order inside one thread (no float atomics), so training is
// deterministic: a resumed run reproduces the uninterrupted one bitwise.
// Image b of a batch is image (first + b) % images of the set.
#include <cmath>
#include <cstdint>

#include "dnn/dnn_shapes.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::dnn {

struct batch_ref {
  const float* pixels;
  const std::uint32_t* labels;
  std::uint64_t images, first;
  std::uint32_t size;
  GPMX_HD const float* image(std::uint32_t b) const { return pixels + ((first + b) % images) * image_pixels; }
  GPMX_HD std::uint32_t label(std::uint32_t b) const { return labels[(first + b) % images]; }
};

// conv (valid, stride 1) + bias + ReLU: out[b][c][y][x].
struct conv_forward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, batch_ref in, const float* w, const float* bias, float* out) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(in.size) * conv_outputs) return;
    const auto b = std::uint32_t(i / conv_outputs), c = std::uint32_t(i / (conv_side * conv_side) % channels);
    const auto y = std::uint32_t(i / conv_side % conv_side), x = std::uint32_t(i % conv_side);
    const float* img = in.image(b);
    float s = bias[c];
    for (std::uint32_t ky = 0; ky < kernel_side; ++ky)
      for (std::uint32_t kx = 0; kx < kernel_side; ++kx)
        s += w[c * kernel_taps + ky * kernel_side + kx] * img[(y + ky) * image_side + x + kx];
    out[i] = s > 0 ? s : 0.0f;
  }
};

// 2x2 max pool: out[b][c][py][px] and which of the four won (0..3).
struct pool_forward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, const float* in, float* out, std::uint8_t* arg) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * features) return;
    const std::uint64_t bc = i / (pool_side * pool_side);
    const auto py = std::uint32_t(i / pool_side % pool_side), px = std::uint32_t(i % pool_side);
    const float* plane = in + bc * conv_side * conv_side;
    std::uint8_t best = 0;
    float m = plane[(2 * py) * conv_side + 2 * px];
    for (std::uint8_t k = 1; k < 4; ++k) {
      const float v = plane[(2 * py + k / 2) * conv_side + 2 * px + k % 2];
      if (v > m) {
        m = v;
        best = k;
      }
    }
    out[i] = m;
    arg[i] = best;
  }
};

// Fully connected: out[b][o] = bias[o] + sum_i w[o][i] in[b][i], ReLU if asked.
struct dense_forward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, std::uint32_t n_in, std::uint32_t n_out, const float* in,
                          const float* w, const float* bias, float* out, bool relu) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * n_out) return;
    const std::uint64_t b = i / n_out, o = i % n_out;
    float s = bias[o];
    for (std::uint32_t k = 0; k < n_in; ++k) s += w[o * n_in + k] * in[b * n_in + k];
    out[i] = relu && s < 0 ? 0.0f : s;
  }
};

// Softmax cross-entropy per image: loss[b], and the gradient of the batch's
// mean loss with respect to the logits, in place of the logits.
struct softmax_xent {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, batch_ref in, float* logits, float* loss) const {
    const std::uint32_t b = t.global_id();
    if (b >= in.size) return;
    float* z = logits + b * classes;
    float m = z[0];
    for (std::uint32_t k = 1; k < classes; ++k) m = z[k] > m ? z[k] : m;
    float sum = 0;
    for (std::uint32_t k = 0; k < classes; ++k) sum += expf(z[k] - m);
    const std::uint32_t label = in.label(b);
    loss[b] = logf(sum) - (z[label] - m);
    for (std::uint32_t k = 0; k < classes; ++k)
      z[k] = (expf(z[k] - m) / sum - (k == label ? 1.0f : 0.0f)) / float(in.size);
  }
};

// Gradient into a dense layer's input: din[b][i] = sum_o dout[b][o] w[o][i],
// zero where the input (a ReLU output) was not positive, if relu_mask.
struct dense_backward_input {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, std::uint32_t n_in, std::uint32_t n_out, const float* dout,
                          const float* w, const float* in, float* din, bool relu_mask) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * n_in) return;
    const std::uint64_t b = i / n_in, k = i % n_in;
    float s = 0;
    for (std::uint32_t o = 0; o < n_out; ++o) s += dout[b * n_out + o] * w[o * n_in + k];
    din[i] = relu_mask && !(in[i] > 0) ? 0.0f : s;
  }
};

// SGD on a dense layer: one thread per weight (then one per bias) sums its
// gradient over the batch and steps.
struct dense_update {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, std::uint32_t n_in, std::uint32_t n_out, const float* dout,
                          const float* in, float* w, float* bias, float lr) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(n_out) * (n_in + 1)) return;
    if (i < std::uint64_t(n_out) * n_in) {
      const std::uint64_t o = i / n_in, k = i % n_in;
      float g = 0;
      for (std::uint32_t b = 0; b < batch; ++b) g += dout[b * n_out + o] * in[b * n_in + k];
      w[i] -= lr * g;
    } else {
      const std::uint64_t o = i - std::uint64_t(n_out) * n_in;
      float g = 0;
      for (std::uint32_t b = 0; b < batch; ++b) g += dout[b * n_out + o];
      bias[o] -= lr * g;
    }
  }
};

// Through the pool and the conv's ReLU: the gradient reaches the winner of
// each window, where the conv output was positive.
struct pool_backward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, const float* dpooled, const std::uint8_t* arg,
                          const float* conv_out, float* dconv) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * conv_outputs) return;
    const std::uint64_t bc = i / (conv_side * conv_side);
    const auto y = std::uint32_t(i / conv_side % conv_side), x = std::uint32_t(i % conv_side);
    const std::uint64_t p = bc * pool_side * pool_side + (y / 2) * pool_side + x / 2;
    const bool winner = arg[p] == (y % 2) * 2 + x % 2;
    dconv[i] = winner && conv_out[i] > 0 ? dpooled[p] : 0.0f;
  }
};

// SGD on the conv layer: one thread per tap (then one per bias).
struct conv_update {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, batch_ref in, const float* dconv, float* w, float* bias, float lr) const {
    const std::uint64_t i = t.global_id();
    if (i >= channels * (kernel_taps + 1)) return;
    const bool is_bias = i >= channels * kernel_taps;
    const auto c = std::uint32_t(is_bias ? i - channels * kernel_taps : i / kernel_taps);
    const auto ky = std::uint32_t(i % kernel_taps / kernel_side), kx = std::uint32_t(i % kernel_side);
    float g = 0;
    for (std::uint32_t b = 0; b < in.size; ++b) {
      const float* img = in.image(b);
      const float* d = dconv + (std::uint64_t(b) * channels + c) * conv_side * conv_side;
      for (std::uint32_t y = 0; y < conv_side; ++y)
        for (std::uint32_t x = 0; x < conv_side; ++x)
          g += d[y * conv_side + x] * (is_bias ? 1.0f : img[(y + ky) * image_side + x + kx]);
    }
    if (is_bias) bias[c] -= lr * g;
    else w[i] -= lr * g;
  }
};

}  // namespace gpmx::apps::dnn
