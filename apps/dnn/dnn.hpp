#pragma once
// DNN (GPM section 4.2): SGD training of a small LeNet-style network
// (dnn_shapes.hpp) on the synthetic image set, every layer a gpmx kernel.
// The checkpointed state is the weights and biases; the loss history is PM
// the workload writes itself (dnn_loss.hpp), so a resumed run continues the
// same loss curve in the same place.
#include <cstdint>
#include <optional>
#include <vector>

#include "dnn/dnn_data.hpp"
#include "dnn/dnn_kernels.hpp"
#include "gpmx/pm/view.hpp"
#include "iterative/iterative.hpp"

namespace gpmx::apps::dnn {

struct training {
  std::uint64_t images = 2048, batch = 64, iterations = 300, seed = 1;
  float learning_rate = 0.05f;
};

class dnn_app final : public iterative::app {
 public:
  explicit dnn_app(const training& t);
  std::vector<iterative::state_array> state() override;
  void step(const launch_target& ex, std::uint64_t iteration) override;
  std::uint64_t operations_per_iteration() const override { return cfg.batch; }

  std::uint64_t own_pm_bytes() const override;
  void attach_pm(const pm::region& r, style s) override;
  verify_report check_own_pm(const pm::region& r, app& reference, std::uint64_t iterations) override;

  // The loss of every iteration run so far, when in DRAM (not attached).
  const kernel_vector<float>& dram_history() const { return history_; }
  // Share of the set the network classifies right (forward pass only).
  double accuracy(const launch_target& ex);

  training cfg;
  image_set data;
  // The parameters (the state).
  kernel_vector<float> conv_w, conv_b, fc1_w, fc1_b, fc2_w, fc2_b;

 private:
  // The batch of cfg.batch images from image `first` on.
  batch_ref batch_at(std::uint64_t first) const;
  void forward(const launch_target& ex, const batch_ref& in);
  kernel_vector<float> conv_out_, pooled_, hidden_, logits_, loss_, d_hidden_, d_pooled_, d_conv_;
  kernel_vector<std::uint8_t> pool_arg_;
  kernel_vector<float> history_, partials_;  // DRAM history (reference runs)
  kernel_vector<std::uint32_t> arrived_;
  kernel_vector<std::uint64_t> flags_;
  std::optional<pm::pm_span<float>> pm_partials_, pm_history_;
  style style_ = style::epoch;
};

}  // namespace gpmx::apps::dnn
