#pragma once
// The deterministic schedule's random source: small, fast, and the same
// sequence on every platform for a given seed (std:: distributions are not).
#include <cstdint>

namespace gpmx::cpu::detail {

class rng {
 public:
  explicit rng(std::uint64_t seed = 0) : state_(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n), n > 0 (Lemire's multiply-shift; bias below 2^-32).
  std::uint32_t below(std::uint32_t n) {
    return std::uint32_t((std::uint64_t(std::uint32_t(next())) * n) >> 32);
  }
  template <class It>
  void shuffle(It first, It last) {
    for (auto n = std::uint32_t(last - first); n > 1; --n) std::swap(first[n - 1], first[below(n)]);
  }

 private:
  std::uint64_t state_;
};

}  // namespace gpmx::cpu::detail
