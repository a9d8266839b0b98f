#include "sim_crash_image.hpp"

#include <fmt/format.h>

#include "gpmx/pm/pool.hpp"

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

}  // namespace gpmx::cli
