#include "gpmx/pm/pool_identity.hpp"

#include <chrono>
#include <mutex>
#include <optional>
#include <random>

#include "gpmx/support/hash_mix.hpp"

namespace gpmx::pm {
namespace {

// The seed of the live deterministic_pool_identity and the pools created
// under it; pools may be created from several threads.
std::mutex identity_mutex;
std::optional<std::uint64_t> identity_seed;
std::uint64_t identities_drawn = 0;

std::uint64_t now_ns() {
  return std::uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

}  // namespace

deterministic_pool_identity::deterministic_pool_identity(std::uint64_t seed) {
  std::lock_guard lock(identity_mutex);
  identity_seed = seed;
  identities_drawn = 0;
}

deterministic_pool_identity::~deterministic_pool_identity() {
  std::lock_guard lock(identity_mutex);
  identity_seed.reset();
}

pool_identity next_pool_identity() {
  pool_identity id;
  std::lock_guard lock(identity_mutex);
  if (identity_seed) {
    const std::uint64_t n = identities_drawn++;
    for (std::size_t i = 0; i < id.uuid.size(); ++i)
      id.uuid[i] = std::uint8_t(mix64(*identity_seed * 0x9e3779b97f4a7c15ull + n * 64 + i / 8) >> (8 * (i % 8)));
    id.created_ns = 0;
  } else {
    std::random_device rd;
    for (auto& b : id.uuid) b = std::uint8_t(rd());
    id.created_ns = now_ns();
  }
  id.uuid[6] = std::uint8_t((id.uuid[6] & 0x0f) | 0x40);  // RFC 4122 version 4
  id.uuid[8] = std::uint8_t((id.uuid[8] & 0x3f) | 0x80);
  return id;
}

}  // namespace gpmx::pm
