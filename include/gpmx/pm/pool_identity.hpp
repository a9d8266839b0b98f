#pragma once
// A pool's identity: the uuid and creation time pool::create writes into its
// header. They are random and the clock's by default. A recording that must
// be the same every time (trace mode: the same program, parameters and seed
// give a byte-identical trace) holds a deterministic_pool_identity while it
// runs: pools created meanwhile get uuids drawn from the seed in creation
// order and creation time 0.
#include <array>
#include <cstdint>

namespace gpmx::pm {

class deterministic_pool_identity {
 public:
  explicit deterministic_pool_identity(std::uint64_t seed);
  ~deterministic_pool_identity();
  deterministic_pool_identity(const deterministic_pool_identity&) = delete;
  deterministic_pool_identity& operator=(const deterministic_pool_identity&) = delete;
};

struct pool_identity {
  std::array<std::uint8_t, 16> uuid{};
  std::uint64_t created_ns = 0;
};

// The identity of the next pool created: random and now, or the next one
// drawn from the seed of a live deterministic_pool_identity.
pool_identity next_pool_identity();

}  // namespace gpmx::pm
