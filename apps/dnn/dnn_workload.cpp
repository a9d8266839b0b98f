// DNN as a workload (`gpmx run dnn`): LeNet-style training whose weights and
// biases are checkpointed every `interval` iterations and whose loss history
// is kept in PM.
#include "dnn/dnn.hpp"

namespace gpmx::apps {
namespace {

class dnn_workload final : public iterative::checkpointed_workload {
 public:
  std::string_view name() const override { return "dnn"; }
  std::string_view summary() const override {
    return "LeNet-style CNN trained with SGD on a synthetic image set; weights and biases checkpointed, loss history "
           "in PM (GPM DNN)";
  }
  std::string_view unit() const override { return "images"; }
  std::vector<param_spec> parameters() const override {
    return {{"images", 2048, "images in the generated training set"},
            {"batch", 64, "images per SGD step"},
            {"iterations", 300, "SGD steps"},
            {"interval", 10, "iterations between checkpoints"},
            {"lr_milli", 50, "learning rate, in thousandths"},
            {"seed", 1, "seed of the image set and the initial weights"}};
  }
  params small_params() const override {
    return {{"images", 64}, {"batch", 8}, {"iterations", 6}, {"interval", 2}, {"lr_milli", 50}, {"seed", 1}};
  }
  std::unique_ptr<iterative::app> make_app(const params& p) const override {
    dnn::training t;
    t.images = iterative::checked(name(), p, "images", 1, 1u << 22);
    t.batch = iterative::checked(name(), p, "batch", 1, 4096);
    t.iterations = iterative::checked(name(), p, "iterations", 1, 1u << 24);
    t.learning_rate = float(iterative::checked(name(), p, "lr_milli", 1, 10000)) / 1000.0f;
    t.seed = p.at("seed");
    return std::make_unique<dnn::dnn_app>(t);
  }
};

}  // namespace

std::unique_ptr<workload> make_dnn_workload() { return std::make_unique<dnn_workload>(); }

}  // namespace gpmx::apps
