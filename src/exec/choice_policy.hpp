#pragma once
// The deterministic schedules' choices, as a policy the worker and the
// block scheduler ask: which resident block or runnable thread goes next,
// and whether a thread at a scheduling point gives way. The parallel
// schedule has no policy (its workers run whatever can run). The seeded
// policy draws every choice from a generator; the timed mode will pick the
// warp whose next operation is earliest in virtual time.
#include <cstdint>
#include <utility>

#include "rng.hpp"

namespace gpmx::cpu::detail {

class choice_policy {
 public:
  virtual ~choice_policy() = default;
  // One of n > 0 alternatives.
  virtual std::uint32_t pick(std::uint32_t n) = 0;
  // Whether a thread at a scheduling point yields to another.
  virtual bool yield_at_point() { return pick(2) == 0; }
  // An order for n items (Fisher-Yates over pick).
  template <class It>
  void shuffle(It first, It last) {
    for (auto n = std::uint32_t(last - first); n > 1; --n) std::swap(first[n - 1], first[pick(n)]);
  }
};

// Every choice drawn from a seeded generator: a run is a function of the seed.
class seeded_choices final : public choice_policy {
 public:
  explicit seeded_choices(std::uint64_t seed) : rng_(seed) {}
  std::uint32_t pick(std::uint32_t n) override { return rng_.below(n); }

 private:
  rng rng_;
};

}  // namespace gpmx::cpu::detail
