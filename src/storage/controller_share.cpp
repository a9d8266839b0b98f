#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "gpmx/exec/errors.hpp"
#include "gpmx/storage/controller.hpp"

namespace gpmx::storage {

std::vector<controller_share> share_queue_pairs(const std::vector<queue_pair_view>& queues, std::uint32_t n,
                                                std::uint32_t in_flight) {
  if (n == 0 || n > queues.size())
    throw config_error(fmt::format("controllers={} must be 1 to the device's queue pairs ({})", n, queues.size()));
  std::vector<controller_share> shares(n);
  for (std::uint32_t c = 0; c < n; ++c) {
    for (std::size_t q = c; q < queues.size(); q += n) shares[c].queues.push_back(queues[q]);
    shares[c].ring_entries = std::max<std::uint32_t>(1, in_flight / n);
  }
  return shares;
}

unsigned workers_beside_controllers(unsigned requested, unsigned controller_threads) {
  if (requested != 0) return requested;
  if (const char* env = std::getenv("GPMX_WORKERS"); env != nullptr && *env != '\0')
    return 0;  // the executor reads it (and refuses a bad value, naming it)
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return cores > controller_threads ? cores - controller_threads : 1u;
}

}  // namespace gpmx::storage
