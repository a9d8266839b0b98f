#include "sim_crash_image.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/sim/crash_image_files.hpp"

namespace gpmx::cli {

crash_image_summary write_crash_image(const sim::durability_tracker& t, const sim::gpu_model& gpu, std::uint64_t cycle) {
  const std::uint32_t mhz = gpu.config().clock.core_mhz;
  crash_image_summary s;
  s.cycle = cycle;
  s.at = sim::cycles_to_picos(cycle, mhz);
  s.run_cycles = sim::picos_to_cycles(gpu.totals().end, mhz);
  const std::vector<sim::durable_log::file_image> images = t.log().files_at(s.at);
  // The run kept no persist journal (the timed mode is the host observer),
  // but one left by an earlier run at these paths would replay over the image.
  for (const auto& f : images) std::filesystem::remove(pm::journal_path(f.path));
  const sim::written_images w = sim::write_images(images);
  s.files_written = w.written;
  s.files_removed = w.removed;
  s.pieces = t.log().pieces();
  s.never_durable = t.log().pieces_not_durable();
  s.pieces_durable = t.log().pieces_durable_by(s.at);
  return s;
}

nlohmann::json to_json(const crash_image_summary& s) {
  return {{"cycle", s.cycle},           {"picoseconds", s.at},          {"run_cycles", s.run_cycles},
          {"files_written", s.files_written}, {"files_removed", s.files_removed}, {"pm_writes", s.pieces},
          {"pm_writes_durable", s.pieces_durable}, {"pm_writes_never_durable", s.never_durable}};
}

void print_crash_image(const crash_image_summary& s, const std::string& workload, const std::string& data) {
  fmt::print("\ncrash image at cycle {} of {}: {} pool files written, {} removed; {} of {} PM writes (by sector) "
             "durable then{}\n",
             s.cycle, s.run_cycles, s.files_written, s.files_removed, s.pieces_durable, s.pieces,
             s.never_durable ? fmt::format(" ({} never durable)", s.never_durable) : std::string());
  fmt::print("next: gpmx recover {0} --data {1} && gpmx verify {0} --data {1}\n", workload, data);
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
    if (colon == std::string::npos) bad_crash_at(text, "expected launch:K:P% or launch:K:end (K a launch number or mid)");
    const std::string k = rest.substr(0, colon);
    // "end": the launch's last cycle, before it completes (the largest log
    // an undo-logged batch leaves: SBRP's Figure 11 crashes there).
    const std::string point = rest.substr(colon + 1);
    const bool at_end = point == "end";
    if (!at_end && (point.empty() || point.back() != '%')) bad_crash_at(text, "expected a share such as 50%, or end");
    const double share = at_end ? 1.0 : share_of(point, text);
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
    if (at_end) {
      const std::uint64_t first = cycles(double(l.start)), last = cycles(double(l.end));
      return last > first ? last - 1 : first;
    }
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
