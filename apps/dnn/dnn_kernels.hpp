#pragma once
// The network's kernels, one thread per output value. Every sum runs in a
// fixed order inside one thread (no float atomics), so training is
// deterministic: a resumed run reproduces the uninterrupted one bitwise.
// Image b of a batch is image (first + b) % images of the set. Activations,
// gradients, parameters and the image set are device memory, reached through
// global_span views.
#include <cmath>
#include <cstdint>

#include "dnn/dnn_shapes.hpp"
#include "gpmx/exec/mem_view.hpp"
#include "gpmx/exec/portability.hpp"

namespace gpmx::apps::dnn {

using floats_in = global_span<const float>;
using floats_out = global_span<float>;

struct batch_ref {
  floats_in pixels;
  global_span<const std::uint32_t> labels;
  std::uint64_t images, first;
  std::uint32_t size;
  // Where image b's pixels start in `pixels`, and its label's index.
  GPMX_HD std::uint64_t image_at(std::uint32_t b) const { return ((first + b) % images) * image_pixels; }
  GPMX_HD std::uint64_t label_at(std::uint32_t b) const { return (first + b) % images; }
};

// conv (valid, stride 1) + bias + ReLU: out[b][c][y][x].
struct conv_forward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, batch_ref in, floats_in w, floats_in bias, floats_out out) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(in.size) * conv_outputs) return;
    const auto b = std::uint32_t(i / conv_outputs), c = std::uint32_t(i / (conv_side * conv_side) % channels);
    const auto y = std::uint32_t(i / conv_side % conv_side), x = std::uint32_t(i % conv_side);
    const auto px = in.pixels.bind(t);
    const auto wv = w.bind(t);
    const std::uint64_t img = in.image_at(b);
    float s = bias.bind(t)[c];
    for (std::uint32_t ky = 0; ky < kernel_side; ++ky)
      for (std::uint32_t kx = 0; kx < kernel_side; ++kx)
        s += float(wv[c * kernel_taps + ky * kernel_side + kx]) * float(px[img + (y + ky) * image_side + x + kx]);
    out.bind(t)[i] = s > 0 ? s : 0.0f;
  }
};

// 2x2 max pool: out[b][c][py][px] and which of the four won (0..3).
struct pool_forward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, floats_in in, floats_out out,
                          global_span<std::uint8_t> arg) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * features) return;
    const std::uint64_t bc = i / (pool_side * pool_side);
    const auto py = std::uint32_t(i / pool_side % pool_side), px = std::uint32_t(i % pool_side);
    const auto v_in = in.bind(t);
    const std::uint64_t plane = bc * conv_side * conv_side;
    std::uint8_t best = 0;
    float m = v_in[plane + (2 * py) * conv_side + 2 * px];
    for (std::uint8_t k = 1; k < 4; ++k) {
      const float v = v_in[plane + (2 * py + k / 2) * conv_side + 2 * px + k % 2];
      if (v > m) {
        m = v;
        best = k;
      }
    }
    out.bind(t)[i] = m;
    arg.bind(t)[i] = best;
  }
};

// Fully connected: out[b][o] = bias[o] + sum_i w[o][i] in[b][i], ReLU if asked.
struct dense_forward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, std::uint32_t n_in, std::uint32_t n_out, floats_in in,
                          floats_in w, floats_in bias, floats_out out, bool relu) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * n_out) return;
    const std::uint64_t b = i / n_out, o = i % n_out;
    const auto v_in = in.bind(t);
    const auto wv = w.bind(t);
    float s = bias.bind(t)[o];
    for (std::uint32_t k = 0; k < n_in; ++k) s += float(wv[o * n_in + k]) * float(v_in[b * n_in + k]);
    out.bind(t)[i] = relu && s < 0 ? 0.0f : s;
  }
};

// Softmax cross-entropy per image: loss[b], and the gradient of the batch's
// mean loss with respect to the logits, in place of the logits.
struct softmax_xent {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, batch_ref in, floats_out logits, floats_out loss) const {
    const std::uint32_t b = t.global_id();
    if (b >= in.size) return;
    const auto z = logits.bind(t);
    const std::uint64_t row = std::uint64_t(b) * classes;
    float m = z[row];
    for (std::uint32_t k = 1; k < classes; ++k) {
      const float zk = z[row + k];
      m = zk > m ? zk : m;
    }
    float sum = 0;
    for (std::uint32_t k = 0; k < classes; ++k) sum += expf(float(z[row + k]) - m);
    const std::uint32_t label = in.labels.bind(t)[in.label_at(b)];
    loss.bind(t)[b] = logf(sum) - (float(z[row + label]) - m);
    for (std::uint32_t k = 0; k < classes; ++k)
      z[row + k] = (expf(float(z[row + k]) - m) / sum - (k == label ? 1.0f : 0.0f)) / float(in.size);
  }
};

// Gradient into a dense layer's input: din[b][i] = sum_o dout[b][o] w[o][i],
// zero where the input (a ReLU output) was not positive, if relu_mask.
struct dense_backward_input {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, std::uint32_t n_in, std::uint32_t n_out, floats_in dout,
                          floats_in w, floats_in in, floats_out din, bool relu_mask) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * n_in) return;
    const std::uint64_t b = i / n_in, k = i % n_in;
    const auto d = dout.bind(t);
    const auto wv = w.bind(t);
    float s = 0;
    for (std::uint32_t o = 0; o < n_out; ++o) s += float(d[b * n_out + o]) * float(wv[o * n_in + k]);
    din.bind(t)[i] = relu_mask && !(float(in.bind(t)[i]) > 0) ? 0.0f : s;
  }
};

// SGD on a dense layer: one thread per weight (then one per bias) sums its
// gradient over the batch and steps.
struct dense_update {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, std::uint32_t n_in, std::uint32_t n_out, floats_in dout,
                          floats_in in, floats_out w, floats_out bias, float lr) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(n_out) * (n_in + 1)) return;
    const auto d = dout.bind(t);
    if (i < std::uint64_t(n_out) * n_in) {
      const std::uint64_t o = i / n_in, k = i % n_in;
      const auto v_in = in.bind(t);
      float g = 0;
      for (std::uint32_t b = 0; b < batch; ++b) g += float(d[b * n_out + o]) * float(v_in[b * n_in + k]);
      w.bind(t)[i] -= lr * g;
    } else {
      const std::uint64_t o = i - std::uint64_t(n_out) * n_in;
      float g = 0;
      for (std::uint32_t b = 0; b < batch; ++b) g += float(d[b * n_out + o]);
      bias.bind(t)[o] -= lr * g;
    }
  }
};

// Through the pool and the conv's ReLU: the gradient reaches the winner of
// each window, where the conv output was positive.
struct pool_backward {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, std::uint32_t batch, floats_in dpooled, global_span<const std::uint8_t> arg,
                          floats_in conv_out, floats_out dconv) const {
    const std::uint64_t i = t.global_id();
    if (i >= std::uint64_t(batch) * conv_outputs) return;
    const std::uint64_t bc = i / (conv_side * conv_side);
    const auto y = std::uint32_t(i / conv_side % conv_side), x = std::uint32_t(i % conv_side);
    const std::uint64_t p = bc * pool_side * pool_side + (y / 2) * pool_side + x / 2;
    const bool winner = std::uint8_t(arg.bind(t)[p]) == (y % 2) * 2 + x % 2;
    dconv.bind(t)[i] = winner && float(conv_out.bind(t)[i]) > 0 ? float(dpooled.bind(t)[p]) : 0.0f;
  }
};

// SGD on the conv layer: one thread per tap (then one per bias).
struct conv_update {
  template <class Ctx>
  GPMX_HD void operator()(Ctx& t, batch_ref in, floats_in dconv, floats_out w, floats_out bias, float lr) const {
    const std::uint64_t i = t.global_id();
    if (i >= channels * (kernel_taps + 1)) return;
    const bool is_bias = i >= channels * kernel_taps;
    const auto c = std::uint32_t(is_bias ? i - channels * kernel_taps : i / kernel_taps);
    const auto ky = std::uint32_t(i % kernel_taps / kernel_side), kx = std::uint32_t(i % kernel_side);
    const auto px = in.pixels.bind(t);
    const auto dv = dconv.bind(t);
    float g = 0;
    for (std::uint32_t b = 0; b < in.size; ++b) {
      const std::uint64_t img = in.image_at(b);
      const std::uint64_t d = (std::uint64_t(b) * channels + c) * conv_side * conv_side;
      for (std::uint32_t y = 0; y < conv_side; ++y)
        for (std::uint32_t x = 0; x < conv_side; ++x)
          g += float(dv[d + y * conv_side + x]) * (is_bias ? 1.0f : float(px[img + (y + ky) * image_side + x + kx]));
    }
    if (is_bias) bias.bind(t)[c] -= lr * g;
    else w.bind(t)[i] -= lr * g;
  }
};

}  // namespace gpmx::apps::dnn
