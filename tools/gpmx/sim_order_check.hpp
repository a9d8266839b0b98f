#pragma once
// gpmx sim W --check-order: the run is traced beside the timing model, and
// the order in which the simulated hardware made the kernels' PM stores
// durable is checked against the persist order of the workload's model
// (check::check_durable_order; docs/sim-persistency.md).
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "gpmx/check/durable_order.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::cli {

struct order_check_summary {
  std::string model;             // the formal model checked against
  std::size_t granule_stores = 0;
  check::durable_order_result result;
  std::string first_violation;   // in words, or empty
};

// `model`: "epoch" or "sbrp". Throws check::check_error when the trace is
// too large for the persist order (the message says how large).
order_check_summary check_sim_order(const trace::trace& t, const sim::durability_tracker& tracker,
                                    const std::string& model, std::uint32_t core_mhz);
nlohmann::json to_json(const order_check_summary& s);
void print_order_check(const order_check_summary& s);

}  // namespace gpmx::cli
