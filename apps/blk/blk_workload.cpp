// BLK as a workload (`gpmx run blk`): Black-Scholes iterations over many
// options, the prices checkpointed every `interval` iterations.
#include "blk/blk.hpp"

namespace gpmx::apps {
namespace {

class blk_workload final : public iterative::checkpointed_workload {
 public:
  std::string_view name() const override { return "blk"; }
  std::string_view summary() const override {
    return "Black-Scholes over many options, iterated; spot and option prices checkpointed (GPM BLK)";
  }
  std::string_view unit() const override { return "option prices"; }
  std::vector<param_spec> parameters() const override {
    return {{"options", 1u << 18, "options priced per iteration"},
            {"iterations", 60, "iterations (trading days) run"},
            {"interval", 5, "iterations between checkpoints"},
            {"seed", 1, "seed of the options and the market moves"}};
  }
  params small_params() const override {
    return {{"options", 2048}, {"iterations", 6}, {"interval", 2}, {"seed", 1}};
  }
  std::unique_ptr<iterative::app> make_app(const params& p) const override {
    return std::make_unique<blk::blk_app>(iterative::checked(name(), p, "options", 1, 1u << 28), p.at("seed"));
  }
};

}  // namespace

std::unique_ptr<workload> make_blk_workload() { return std::make_unique<blk_workload>(); }

}  // namespace gpmx::apps
