// HotSpot as a workload (`gpmx run hotspot`): thermal simulation of a chip,
// the temperatures checkpointed every `interval` iterations.
#include "hotspot/hotspot.hpp"

namespace gpmx::apps {
namespace {

class hotspot_workload final : public iterative::checkpointed_workload {
 public:
  std::string_view name() const override { return "hotspot"; }
  std::string_view summary() const override {
    return "HotSpot thermal simulation on a grid; temperatures checkpointed (GPM HS, Rodinia)";
  }
  std::string_view unit() const override { return "cell updates"; }
  std::vector<param_spec> parameters() const override {
    return {{"rows", 1024, "grid rows"},
            {"cols", 1024, "grid columns"},
            {"iterations", 100, "iterations run (two time steps each)"},
            {"interval", 10, "iterations between checkpoints"},
            {"seed", 1, "seed of the power map and the initial temperatures"}};
  }
  params small_params() const override {
    return {{"rows", 48}, {"cols", 64}, {"iterations", 6}, {"interval", 2}, {"seed", 1}};
  }
  std::unique_ptr<iterative::app> make_app(const params& p) const override {
    return std::make_unique<hotspot::hotspot_app>(iterative::checked(name(), p, "rows", 1, 1u << 15),
                                                  iterative::checked(name(), p, "cols", 1, 1u << 15), p.at("seed"));
  }
};

}  // namespace

std::unique_ptr<workload> make_hotspot_workload() { return std::make_unique<hotspot_workload>(); }

}  // namespace gpmx::apps
