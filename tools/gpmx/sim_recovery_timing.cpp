#include "sim_recovery_timing.hpp"

#include <chrono>
#include <map>

#include <fmt/format.h>

#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/sim/report.hpp"

namespace gpmx::cli {

recovery_timing time_recovery(apps::workload& w, const std::filesystem::path& dir, const sim::sim_config& c,
                              std::uint64_t seed) {
  recovery_timing r;
  sim::gpu_model gpu(c);
  const auto t0 = std::chrono::steady_clock::now();
  {
    const pm::deterministic_pool_identity identity(seed);
    const sim::canonical_kernel_memory placement;
    cpu::executor ex({.policy = cpu::schedule::timed, .seed = seed, .timing = &gpu});
    const apps::recover_report rep = w.recover({ex, dir, pm::durability::none});
    r.repaired = rep.repaired;
    r.what = rep.what;
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.kernel_ps = double(gpu.totals().kernel_time());
  r.cycles = sim::picos_to_cycles(gpu.totals().kernel_time(), c.clock.core_mhz);
  r.launches = gpu.totals().launches.size();
  for (unsigned k = 0; k < stall_reason_count; ++k) {
    double picos = 0;
    for (const sm_activity& s : gpu.totals().sms) picos += double(s.stalled[k]);
    r.stalls.emplace_back(to_string(stall_reason(k)), sim::picos_to_cycles_exact(sim::picos(picos), c.clock.core_mhz));
  }
  r.persistency = sim::report_json(gpu, sim::run_summary{std::string(w.name()), "", {}, 0, true, ""}).at("persistency");
  cpu::executor check_ex;
  const apps::verify_report v = w.verify({check_ex, dir});
  r.verified = v.ok;
  r.verify_detail = v.detail;
  return r;
}

nlohmann::json to_json(const recovery_timing& r) {
  return {{"kernel_ps", r.kernel_ps}, {"kernel_cycles", r.cycles}, {"launches", r.launches},
          {"repaired", r.repaired},   {"what", r.what},            {"verified", r.verified},
          {"verify_detail", r.verify_detail}, {"wall_seconds", r.wall_seconds},
          {"stall_cycles", nlohmann::json(std::map<std::string, double>(r.stalls.begin(), r.stalls.end()))},
          {"persistency", r.persistency}};
}

void print_recovery_timing(const recovery_timing& r) {
  fmt::print("recovery in the timed mode: {} cycles in {} launches ({}); verified: {}{}\n", r.cycles, r.launches,
             r.what, r.verified ? "yes" : "no", r.verified ? "" : " (" + r.verify_detail + ")");
}

}  // namespace gpmx::cli
