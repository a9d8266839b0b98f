#pragma once
// Helpers of the memory-system tests: requests, closed-loop drivers, and
// the latencies a lone request should see, derived from the configuration
// the way docs/sim-memory.md states them (not from the model's code).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <queue>
#include <utility>
#include <vector>

#include "gpmx/sim/memory_system.hpp"

namespace gpmx::sim::testing {

// ThreadSanitizer maps about nine memory regions per fiber and a process may
// map 65,530 by default (vm.max_map_count): 30 SMs of 1,024 waiting threads
// (30,720 fibers) do not fit, nor do 6,144 (measured). Under tsan the
// kernels that fill every SM run on a GPU of a tenth of the SMs whose shared
// devices (GDDR, PCIe, NVM) have a tenth of the bandwidth, so each claim
// (the configured rate is reached) is checked as it is, on a smaller machine.
#if defined(GPMX_SANITIZER_thread)
inline constexpr std::uint32_t sanitizer_shrink = 10;
#else
inline constexpr std::uint32_t sanitizer_shrink = 1;
#endif
inline sim_config fit_for_sanitizer(sim_config c) {
  if (sanitizer_shrink == 1) return c;
  c.sm.count /= sanitizer_shrink;
  // GDDR's latency needs more requests in flight per GB/s than three SMs'
  // warps keep (a tenth reached 0.91 of its rate): its rate shrinks twice.
  c.gddr.bandwidth_gbs /= 2 * sanitizer_shrink;
  c.pcie.bandwidth_gbs /= sanitizer_shrink;
  c.nvm.read_gbs /= sanitizer_shrink;
  c.nvm.write_gbs /= sanitizer_shrink;
  return c;
}

inline warp_request one_lane(std::uint32_t sm, gpmx::mem_space space, gpmx::access_kind kind, std::uint64_t addr,
                             std::uint32_t bytes = 4) {
  warp_request r;
  r.sm = sm;
  r.space = space;
  r.kind = kind;
  r.active = 1;
  r.lanes[0] = {addr, bytes};
  return r;
}

// 32 lanes x 4 consecutive bytes: one whole 128-byte line.
inline warp_request whole_line(std::uint32_t sm, gpmx::mem_space space, gpmx::access_kind kind, std::uint64_t line) {
  warp_request r;
  r.sm = sm;
  r.space = space;
  r.kind = kind;
  r.active = 0xffffffffu;
  for (unsigned i = 0; i < 32; ++i) r.lanes[i] = {line + 4 * i, 4};
  return r;
}

// Picoseconds `bytes` take at `gbs` GB/s (1 GB/s = 1 byte per ns).
inline double transfer_ps(double bytes, double gbs) { return bytes / gbs * 1000.0; }
inline double cycles_ps(const sim_config& c, double n) { return n * 1e6 / c.clock.core_mhz; }
inline double per_cycle_gbs(const sim_config& c, double bytes_per_cycle) {
  return bytes_per_cycle * c.clock.core_mhz / 1000.0;
}

// What one load of `bytes` sees at each level when nothing else is in
// flight (docs/sim-memory.md, "What a dependent load costs").
inline double l1_hit_ps(const sim_config& c) { return cycles_ps(c, c.l1.latency); }
inline double l2_hit_ps(const sim_config& c, double bytes) {
  return cycles_ps(c, c.l1.latency) + transfer_ps(bytes, per_cycle_gbs(c, c.icnt.port_bytes_per_cycle)) +
         cycles_ps(c, c.icnt.latency) + transfer_ps(bytes, per_cycle_gbs(c, c.l2.bank_bytes_per_cycle)) +
         cycles_ps(c, c.l2.latency) + cycles_ps(c, c.icnt.latency);
}
inline double gddr_ps(const sim_config& c, double bytes) {
  return l2_hit_ps(c, bytes) + transfer_ps(bytes, c.gddr.bandwidth_gbs / c.gddr.channels) + c.gddr.latency_ns * 1000;
}
inline double pm_near_ps(const sim_config& c, double bytes) {
  return l2_hit_ps(c, bytes) + transfer_ps(bytes, c.nvm.read_gbs) + c.nvm.latency_ns * 1000;
}
inline double pm_far_ps(const sim_config& c, double bytes) {
  return l2_hit_ps(c, bytes) + c.pcie.latency_ns * 1000 + transfer_ps(bytes, c.nvm.read_gbs) +
         c.nvm.latency_ns * 1000 + transfer_ps(bytes, c.pcie.bandwidth_gbs) + c.pcie.latency_ns * 1000;
}

// Prints the measurement beside what the configuration says (the figures
// docs/sim.md quotes) and requires them within the issue's 5%.
inline void report_within_5_percent(double measured, double expected, const char* what) {
  std::cout << what << ": measured " << measured << ", expected " << expected << " (" << measured / expected
            << "x)\n";
  EXPECT_NEAR(measured, expected, 0.05 * expected) << what;
}

struct stream_result {
  picos first_issue = 0;
  picos last_done = 0;
  std::uint64_t bytes = 0;
  double gbs() const { return double(bytes) / double(last_done - first_issue) * 1000.0; }
};

// A closed loop: each of `sms` SMs keeps `outstanding` requests in flight,
// issuing the next one when one completes (in time order across SMs), until
// `total` requests have issued. make(sm, i) builds request i. The result
// counts requests from `measure_from` on: from its issue to the last done.
inline stream_result closed_loop(memory_system& m, std::uint32_t sms, std::uint32_t outstanding, std::uint64_t total,
                                 const std::function<warp_request(std::uint32_t, std::uint64_t)>& make,
                                 std::uint64_t measure_from = 0, std::uint64_t bytes_per_request = 128) {
  using event = std::pair<picos, std::uint32_t>;
  std::priority_queue<event, std::vector<event>, std::greater<>> ready;
  for (std::uint32_t k = 0; k < outstanding; ++k)
    for (std::uint32_t s = 0; s < sms; ++s) ready.push({0, s});
  stream_result r;
  for (std::uint64_t i = 0; i < total; ++i) {
    auto [t, sm] = ready.top();
    ready.pop();
    picos done = m.access(make(sm, i), t).done;
    if (i == measure_from) r.first_issue = t;
    if (i >= measure_from) {
      r.last_done = std::max(r.last_done, done);
      r.bytes += bytes_per_request;
    }
    ready.push({done, sm});
  }
  return r;
}

}  // namespace gpmx::sim::testing
