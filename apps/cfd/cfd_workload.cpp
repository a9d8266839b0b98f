// CFD as a workload (`gpmx run cfd`): a finite-volume Euler solver, the
// conserved variables checkpointed every `interval` iterations.
#include "cfd/cfd.hpp"

namespace gpmx::apps {
namespace {

class cfd_workload final : public iterative::checkpointed_workload {
 public:
  std::string_view name() const override { return "cfd"; }
  std::string_view summary() const override {
    return "2-D Euler equations, finite volumes with Rusanov fluxes; density, momentum, energy checkpointed (GPM CFD)";
  }
  std::string_view unit() const override { return "cell updates"; }
  std::vector<param_spec> parameters() const override {
    return {{"nx", 512, "grid cells along x"},
            {"ny", 512, "grid cells along y"},
            {"iterations", 40, "iterations run (two time steps each)"},
            {"interval", 5, "iterations between checkpoints"},
            {"seed", 1, "seed of the initial bubbles"}};
  }
  params small_params() const override {
    return {{"nx", 48}, {"ny", 32}, {"iterations", 6}, {"interval", 2}, {"seed", 1}};
  }
  std::unique_ptr<iterative::app> make_app(const params& p) const override {
    return std::make_unique<cfd::cfd_app>(iterative::checked(name(), p, "nx", 4, 1u << 14),
                                          iterative::checked(name(), p, "ny", 4, 1u << 14), p.at("seed"));
  }
};

}  // namespace

std::unique_ptr<workload> make_cfd_workload() { return std::make_unique<cfd_workload>(); }

}  // namespace gpmx::apps
