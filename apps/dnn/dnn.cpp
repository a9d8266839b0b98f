#include "dnn/dnn.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "dnn/dnn_loss.hpp"
#include "iterative/kernel_math.hpp"

namespace gpmx::apps::dnn {
namespace {

constexpr std::uint32_t block = 128;

launch_config grid_for(std::uint64_t threads, const char* name) {
  return {dim3(std::uint32_t((threads + block - 1) / block)), dim3(block), 0, name};
}

// Glorot-uniform weights from the seed; biases start at zero.
kernel_vector<float> glorot(std::uint64_t n, std::uint32_t fan_in, std::uint32_t fan_out, std::uint64_t seed,
                          std::uint64_t layer) {
  const float a = std::sqrt(6.0f / float(fan_in + fan_out));
  kernel_vector<float> w(n);
  for (std::uint64_t i = 0; i < n; ++i) w[i] = a * (2.0f * iterative::unit_float(seed * 131 + layer, i) - 1.0f);
  return w;
}

// The own PM region: the loss_blocks partial sums, then the history.
constexpr std::uint64_t partial_floats = 16;

// Device memory of a vector, as a kernel argument.
floats_in in_view(const kernel_vector<float>& v) { return {v.data(), v.size()}; }
floats_out out_view(kernel_vector<float>& v) { return {v.data(), v.size()}; }

}  // namespace

dnn_app::dnn_app(const training& t)
    : cfg(t),
      data(make_image_set(t.images, t.seed)),
      conv_w(glorot(channels * kernel_taps, kernel_taps, channels * kernel_taps, t.seed, 0)),
      conv_b(channels, 0.0f),
      fc1_w(glorot(std::uint64_t(hidden) * features, features, hidden, t.seed, 1)),
      fc1_b(hidden, 0.0f),
      fc2_w(glorot(std::uint64_t(classes) * hidden, hidden, classes, t.seed, 2)),
      fc2_b(classes, 0.0f),
      conv_out_(t.batch * conv_outputs),
      pooled_(t.batch * features),
      hidden_(t.batch * hidden),
      logits_(t.batch * classes),
      loss_(t.batch),
      d_hidden_(t.batch * hidden),
      d_pooled_(t.batch * features),
      d_conv_(t.batch * conv_outputs),
      pool_arg_(t.batch * features),
      history_(t.iterations, 0.0f),
      partials_(partial_floats, 0.0f),
      arrived_(1, 0),
      flags_(loss_blocks, 0) {}

std::vector<iterative::state_array> dnn_app::state() {
  return {{"conv.weight", conv_w.data(), conv_w.size()}, {"conv.bias", conv_b.data(), conv_b.size()},
          {"fc1.weight", fc1_w.data(), fc1_w.size()},    {"fc1.bias", fc1_b.data(), fc1_b.size()},
          {"fc2.weight", fc2_w.data(), fc2_w.size()},    {"fc2.bias", fc2_b.data(), fc2_b.size()}};
}

void dnn_app::forward(const launch_target& ex, const batch_ref& in) {
  const std::uint32_t b = in.size;
  ex.launch(grid_for(std::uint64_t(b) * conv_outputs, "dnn_conv_forward"), conv_forward{}, in, in_view(conv_w),
            in_view(conv_b), out_view(conv_out_));
  ex.launch(grid_for(std::uint64_t(b) * features, "dnn_pool_forward"), pool_forward{}, b, in_view(conv_out_),
            out_view(pooled_), global_span<std::uint8_t>(pool_arg_.data(), pool_arg_.size()));
  ex.launch(grid_for(std::uint64_t(b) * hidden, "dnn_fc1_forward"), dense_forward{}, b, features, hidden,
            in_view(pooled_), in_view(fc1_w), in_view(fc1_b), out_view(hidden_), true);
  ex.launch(grid_for(std::uint64_t(b) * classes, "dnn_fc2_forward"), dense_forward{}, b, hidden, classes,
            in_view(hidden_), in_view(fc2_w), in_view(fc2_b), out_view(logits_), false);
}

batch_ref dnn_app::batch_at(std::uint64_t first) const {
  return {in_view(data.pixels), global_span<const std::uint32_t>(data.labels.data(), data.labels.size()), data.size(),
          first, std::uint32_t(cfg.batch)};
}

void dnn_app::step(const launch_target& ex, std::uint64_t iteration) {
  const auto b = std::uint32_t(cfg.batch);
  const batch_ref in = batch_at(iteration * cfg.batch % data.size());
  const float lr = cfg.learning_rate;
  forward(ex, in);
  ex.launch(grid_for(b, "dnn_softmax_xent"), softmax_xent{}, in, out_view(logits_), out_view(loss_));
  const floats_in d_logits = in_view(logits_);  // now the gradient of the mean loss
  arrived_[0] = 0;
  const launch_config loss_cfg{dim3(loss_blocks), dim3(loss_threads), 0, "dnn_loss"};
  const floats_in losses = in_view(loss_);
  if (pm_history_)
    ex.launch(loss_cfg, loss_kernel{}, losses, b, *pm_partials_, *pm_history_, iteration, style_, arrived_.data(),
              flags_.data());
  else
    ex.launch(loss_cfg, loss_kernel{}, losses, b, out_view(partials_), out_view(history_), iteration, style_,
              arrived_.data(), flags_.data());
  // Backward: each layer's input gradient before its weights change.
  ex.launch(grid_for(std::uint64_t(b) * hidden, "dnn_fc2_backward"), dense_backward_input{}, b, hidden, classes,
            d_logits, in_view(fc2_w), in_view(hidden_), out_view(d_hidden_), true);
  ex.launch(grid_for(std::uint64_t(classes) * (hidden + 1), "dnn_fc2_update"), dense_update{}, b, hidden, classes,
            d_logits, in_view(hidden_), out_view(fc2_w), out_view(fc2_b), lr);
  ex.launch(grid_for(std::uint64_t(b) * features, "dnn_fc1_backward"), dense_backward_input{}, b, features, hidden,
            in_view(d_hidden_), in_view(fc1_w), in_view(pooled_), out_view(d_pooled_), false);
  ex.launch(grid_for(std::uint64_t(hidden) * (features + 1), "dnn_fc1_update"), dense_update{}, b, features, hidden,
            in_view(d_hidden_), in_view(pooled_), out_view(fc1_w), out_view(fc1_b), lr);
  ex.launch(grid_for(std::uint64_t(b) * conv_outputs, "dnn_pool_backward"), pool_backward{}, b, in_view(d_pooled_),
            global_span<const std::uint8_t>(pool_arg_.data(), pool_arg_.size()), in_view(conv_out_),
            out_view(d_conv_));
  ex.launch(grid_for(channels * (kernel_taps + 1), "dnn_conv_update"), conv_update{}, in, in_view(d_conv_),
            out_view(conv_w), out_view(conv_b), lr);
}

std::uint64_t dnn_app::own_pm_bytes() const { return (partial_floats + cfg.iterations) * sizeof(float); }

void dnn_app::attach_pm(const pm::region& r, style s) {
  const pm::pm_span<float> all = r.span<float>();
  pm_partials_ = all.subspan(0, partial_floats);
  pm_history_ = all.subspan(partial_floats, cfg.iterations);
  style_ = s;
}

verify_report dnn_app::check_own_pm(const pm::region& r, app& reference, std::uint64_t iterations) {
  const auto& want = static_cast<dnn_app&>(reference).dram_history();
  const float* have = r.as<float>().data() + partial_floats;
  verify_report v;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    if (std::memcmp(&have[i], &want[i], sizeof(float)) != 0) {
      v.detail = fmt::format("loss history[{}] is {:.9g} in PM; the uninterrupted run's loss there is {:.9g}", i,
                             have[i], want[i]);
      return v;
    }
  }
  v.ok = true;
  v.checked = iterations;
  v.detail = fmt::format("the {} losses in PM ({:.4f} first, {:.4f} last) equal the uninterrupted run's", iterations,
                         have[0], have[iterations - 1]);
  return v;
}

double dnn_app::accuracy(const launch_target& ex) {
  std::uint64_t right = 0;
  const auto b = std::uint32_t(cfg.batch);
  for (std::uint64_t first = 0; first + b <= data.size(); first += b) {
    forward(ex, batch_at(first));
    for (std::uint32_t i = 0; i < b; ++i) {
      std::uint32_t best = 0;
      for (std::uint32_t k = 1; k < classes; ++k)
        if (logits_[i * classes + k] > logits_[i * classes + best]) best = k;
      right += best == data.labels[first + i];
    }
  }
  return double(right) / double(data.size() / b * b);
}

}  // namespace gpmx::apps::dnn
