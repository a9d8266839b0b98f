#pragma once
// Crash points and what a crash there leaves (docs/persistency-models.md,
// section 3). A crash point is a position p in [0, events]: events [0, p)
// happened, events from p on did not.
#include <cstdint>
#include <vector>

#include "gpmx/check/persist_order.hpp"

namespace gpmx::check {

// Just before every ordering operation (gpm_persist, ofence, dfence, prel,
// pacq, barrier, kernel end, host persist) and at the end of the trace: between two
// ordering operations nothing becomes durable, so the position just before
// the next one allows every image the positions in between allow.
std::vector<std::uint64_t> ordering_crash_points(const trace::trace& t);
// Positions n, 2n, ... and the end of the trace; throws check_error when n is 0.
std::vector<std::uint64_t> every_n_crash_points(const trace::trace& t, std::uint64_t n);

struct crash_state {
  std::uint64_t position = 0;
  store_set issued;  // granule-stores of the events before the crash
  store_set must;    // made durable by a durability point before the crash, closed under pmo
  store_set may;     // issued and not must
};

crash_state crash_state_at(const persist_order& order, std::uint64_t position);
// The states of many positions (any order), computed in one sweep.
std::vector<crash_state> crash_states(const persist_order& order, const std::vector<std::uint64_t>& positions);

}  // namespace gpmx::check
