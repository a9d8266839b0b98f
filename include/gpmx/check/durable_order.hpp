#pragma once
// Whether an order in which hardware made PM stores durable is one the
// persistency model allows: every granule-store's pmo-predecessors
// (persist_order) must be durable no later than it. The timed mode's
// hardware models are checked this way (`gpmx sim W --check-order`,
// docs/sim-persistency.md); the durable times come from outside, so this
// knows no simulator.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "gpmx/check/persist_order.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::check {

struct durable_order_violation {
  std::size_t store = 0;        // granule-store id (persist_order::node)
  std::size_t predecessor = 0;  // a pmo-predecessor durable later (or never)
  std::uint64_t store_durable = 0, predecessor_durable = 0;  // never: not durable
};

struct durable_order_result {
  std::size_t kernel_stores = 0;   // granule-stores of kernels' PM view stores, the ones checked
  std::size_t durable = 0;         // of those, durable at all
  std::size_t violations = 0;      // granule-stores with a predecessor durable later
  std::vector<durable_order_violation> first;  // up to 10 of them, in id order
};

// `durable_time(k, address)`: when the byte at `address` of the k-th store
// a kernel made through a PM view (counting pm_write events of launches in
// trace order, unviewed stores excluded) became durable, or `never`.
// Stores by the host and kernels' unviewed stores are not checked, and
// count as no constraint.
using durable_time_fn = std::function<std::uint64_t(std::size_t kernel_store, std::uint64_t address)>;
durable_order_result check_durable_order(const trace::trace& t, const persist_order& order,
                                         const durable_time_fn& durable_time);

}  // namespace gpmx::check
