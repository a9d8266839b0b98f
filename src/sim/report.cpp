#include "gpmx/sim/report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpmx/sim/config.hpp"

namespace gpmx::sim {
namespace {

double cycles_of(const gpu_model& gpu, picos p) { return picos_to_cycles_exact(p, gpu.config().clock.core_mhz); }

// Per-scheduler time summed over an SM's schedulers: as a share of all of it.
nlohmann::json stall_object(const gpu_model& gpu, const sm_activity& a) {
  nlohmann::json j = nlohmann::json::object();
  for (unsigned r = 0; r < stall_reason_count; ++r)
    if (stall_reason(r) != stall_reason::none) j[to_string(stall_reason(r))] = cycles_of(gpu, a.stalled[r]);
  j["issuing"] = cycles_of(gpu, a.busy);
  return j;
}

sm_activity sum_of(const run_totals& t) {
  sm_activity all;
  for (const sm_activity& s : t.sms) {
    all.instructions += s.instructions;
    all.compute_instructions += s.compute_instructions;
    all.blocks += s.blocks;
    all.busy += s.busy;
    for (unsigned r = 0; r < stall_reason_count; ++r) all.stalled[r] += s.stalled[r];
  }
  return all;
}

// The parameters whose values differ from the named configuration's (what
// --set changed), "key=value" each; empty for a configuration as named or
// one whose name is none of the named ones (a program's own).
std::string changed_parameters(const sim_config& c) {
  const auto names = config_names();
  if (std::find(names.begin(), names.end(), c.name) == names.end()) return {};
  const auto now = describe(c), named = describe(named_config(c.name));
  std::string out;
  for (std::size_t i = 1; i < now.size() && i < named.size(); ++i)
    if (now[i].second != named[i].second) out += fmt::format("{}{}={}", out.empty() ? "" : " ", now[i].first, now[i].second);
  return out;
}

}  // namespace

namespace {

nlohmann::json persistency_json(const gpu_model& gpu) {
  const sim_config& c = gpu.config();
  const persistency_stats& p = gpu.persistency().stats();
  nlohmann::json j = {{"model", to_string(c.persist.model)},
                      {"pm", to_string(c.pm.location)},
                      {"eadr", c.persist.eadr},
                      {"barriers", p.barriers},
                      {"held_warp_instructions", p.held_warps},
                      {"held_cycles", cycles_of(gpu, p.held_time)}};
  if (c.persist.model == persist_model::sbrp) {
    const pb_stats& b = p.buffers;
    j["persist_buffer"] = {{"flush", to_string(c.persist.flush)},  {"window", c.persist.window},
                           {"persists", b.persists},               {"coalesced_stores", b.coalesced},
                           {"flushes", b.flushes},                 {"ordering_entries", b.ordering_entries},
                           {"durability_entries", b.durability_entries}, {"order_stalls", b.order_stalls},
                           {"full_stalls", b.full_stalls},         {"eviction_stalls", b.eviction_stalls},
                           {"fsm_waits", b.fsm_waits},             {"merged_points", b.merged_points},
                           {"eviction_stall_cycles", cycles_of(gpu, b.eviction_stall_time)}};
  }
  return j;
}

std::string persistency_table(const gpu_model& gpu) {
  const sim_config& c = gpu.config();
  const persistency_stats& p = gpu.persistency().stats();
  std::string out = fmt::format("{:<26} {} on PM-{}{}", "persistency hardware", to_string(c.persist.model),
                                to_string(c.pm.location), c.persist.eadr ? " with eADR" : "");
  if (c.persist.model != persist_model::sbrp)
    return out + fmt::format(": {} barriers flushed and waited\n", p.barriers);
  const pb_stats& b = p.buffers;
  return out + fmt::format(" ({} flush, window {}): {} persists, {} stores merged, {} ordering and {} durability "
                           "entries, {} warp instructions held {:.0f} cycles; stalls: {} order, {} full, {} "
                           "eviction, {} FSM waits\n",
                           to_string(c.persist.flush), c.persist.window, b.persists, b.coalesced,
                           b.ordering_entries, b.durability_entries, p.held_warps, cycles_of(gpu, p.held_time),
                           b.order_stalls, b.full_stalls, b.eviction_stalls, b.fsm_waits);
}

}  // namespace

nlohmann::json report_json(const gpu_model& gpu, const run_summary& run) {
  const run_totals& t = gpu.totals();
  nlohmann::json j;
  j["workload"] = run.workload;
  j["style"] = run.style;
  j["params"] = run.params;
  j["sizes"] = run.full_size ? "full" : "test";
  nlohmann::json cfg = nlohmann::json::object();
  for (const auto& [k, v] : describe(gpu.config())) cfg[k] = v;
  j["config"] = {{"name", gpu.config().name}, {"parameters", cfg}};
  const picos kernel = t.kernel_time();
  j["simulated"] = {{"kernel_ps", kernel}, {"kernel_ns", double(kernel) / 1000.0},
                    {"kernel_cycles", cycles_of(gpu, kernel)}, {"launches", t.launches.size()}};
  nlohmann::json launches = nlohmann::json::array();
  for (const launch_record& l : t.launches)
    launches.push_back({{"name", l.name}, {"start_ps", l.start}, {"end_ps", l.end},
                        {"cycles", cycles_of(gpu, l.end - l.start)}, {"instructions", l.instructions}});
  j["launches"] = launches;
  j["instructions"] = {{"operations", t.instructions()}, {"compute", t.compute_instructions()}};
  const sm_activity all = sum_of(t);
  nlohmann::json per_sm = nlohmann::json::array();
  for (std::size_t s = 0; s < t.sms.size(); ++s)
    per_sm.push_back({{"sm", s}, {"instructions", t.sms[s].instructions},
                      {"compute_instructions", t.sms[s].compute_instructions}, {"blocks", t.sms[s].blocks},
                      {"scheduler_cycles", stall_object(gpu, t.sms[s])}});
  j["scheduler_cycles"] = {{"all_sms", stall_object(gpu, all)}, {"per_sm", per_sm}};
  j["memory"] = nlohmann::json::parse(to_json(gpu.memory().stats()));
  j["persistency"] = persistency_json(gpu);
  j["wall_seconds"] = run.wall_seconds;
  j["slowdown"] = kernel > 0 ? run.wall_seconds * 1e12 / double(kernel) : 0.0;
  j["verified"] = run.verified;
  j["verify_detail"] = run.verify_detail;
  return j;
}

std::string report_table(const gpu_model& gpu, const run_summary& run) {
  const run_totals& t = gpu.totals();
  const picos kernel = t.kernel_time();
  const sm_activity all = sum_of(t);
  std::string params;
  for (const auto& [k, v] : run.params) params += fmt::format("{}{}={}", params.empty() ? "" : " ", k, v);
  std::string out;
  out += fmt::format("{:<26} {}\n", "workload", run.workload);
  out += fmt::format("{:<26} {}\n", "style", run.style);
  out += fmt::format("{:<26} {}\n", run.full_size ? "parameters (full size)" : "parameters (test sizes)", params);
  const std::string changed = changed_parameters(gpu.config());
  out += fmt::format("{:<26} {}{}{} (gpmx sim --list-configs; JSON lists every parameter)\n", "configuration",
                     gpu.config().name, changed.empty() ? "" : " with ", changed);
  out += fmt::format("{:<26} {:.0f} cycles = {:.3f} us in {} launches\n", "simulated kernel time",
                     cycles_of(gpu, kernel), double(kernel) / 1e6, t.launches.size());
  out += fmt::format("{:<26} {} operations, {} declared compute\n", "warp instructions", t.instructions(),
                     t.compute_instructions());
  // Scheduler time across all SMs and schedulers, by what it was spent on.
  double total = cycles_of(gpu, all.busy);
  for (unsigned r = 0; r < stall_reason_count; ++r) total += cycles_of(gpu, all.stalled[r]);
  std::string shares = fmt::format("issuing {:.1f}%", total > 0 ? 100 * cycles_of(gpu, all.busy) / total : 0.0);
  for (unsigned r = 0; r < stall_reason_count; ++r)
    if (all.stalled[r] != 0)
      shares += fmt::format(", {} {:.1f}%", to_string(stall_reason(r)),
                            100 * cycles_of(gpu, all.stalled[r]) / total);
  out += fmt::format("{:<26} {}\n", "scheduler time", shares);
  out += fmt::format("{:<26} {:.2f} s (slowdown {:.0f}x)\n", "wall time", run.wall_seconds,
                     kernel > 0 ? run.wall_seconds * 1e12 / double(kernel) : 0.0);
  out += persistency_table(gpu);
  out += fmt::format("{:<26} {}{}\n", "verified", run.verified ? "yes" : "NO: ", run.verified ? "" : run.verify_detail);
  out += fmt::format("\n{}", format_table(gpu.memory().stats()));
  return out;
}

}  // namespace gpmx::sim
