#include "sim_recovery_timing.hpp"

#include <charconv>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/sim/report.hpp"

#include <map>

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

namespace {

[[noreturn]] void bad_crash_at(const std::string& text, const std::string& why) {
  throw config_error(fmt::format("--crash-at '{}': {}", text, why));
}

// "P%" as a fraction, or a config_error.
double share_of(const std::string& text, const std::string& whole) {
  if (text.empty() || text.back() != '%') bad_crash_at(whole, "expected a share such as 50%");
  double p = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size() - 1;
  const auto [end, ec] = std::from_chars(first, last, p);
  if (ec != std::errc() || end != last || !(p >= 0) || p > 100) bad_crash_at(whole, "a share is 0% to 100%");
  return p / 100.0;
}

}  // namespace

std::uint64_t crash_cycle(const std::string& text, const sim::run_totals& t, std::uint32_t core_mhz) {
  const auto cycles = [&](double ps) { return sim::picos_to_cycles(sim::picos(std::llround(ps)), core_mhz); };
  if (text.rfind("launch:", 0) == 0) {
    const std::string rest = text.substr(7);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos) bad_crash_at(text, "expected launch:K:P% (K a launch number or mid)");
    const std::string k = rest.substr(0, colon);
    const double share = share_of(rest.substr(colon + 1), text);
    std::size_t index = 0;
    if (k != "mid") {
      const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), index);
      if (ec != std::errc() || end != k.data() + k.size() || k.empty())
        bad_crash_at(text, "the launch is a number from 0, or mid");
    }
    if (t.launches.empty()) return 0;  // the syntax alone
    if (k == "mid") index = t.launches.size() / 2;
    if (index >= t.launches.size())
      bad_crash_at(text, fmt::format("the run made {} launches (0 to {})", t.launches.size(), t.launches.size() - 1));
    const sim::launch_record& l = t.launches[index];
    return cycles(double(l.start) + share * double(l.end - l.start));
  }
  if (!text.empty() && text.back() == '%') return cycles(share_of(text, text) * double(t.end));
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    bad_crash_at(text, "expected cycles, a share of the run such as 50%, or launch:K:P%");
  return n;
}

}  // namespace gpmx::cli
