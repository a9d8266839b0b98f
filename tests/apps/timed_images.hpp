#pragma once
// The timed-mode tests' common steps: a workload run once on the
// simulated GPU with its PM writes followed to durability (kernel buffers
// placed canonically, so the cycles do not depend on the heap), and one of
// its crash images recovered and verified in a copy of its directory.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/registry.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/crash_image_files.hpp"
#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::test {

#if defined(GPMX_SANITIZER_thread)
inline constexpr bool under_thread_sanitizer = true;
#else
inline constexpr bool under_thread_sanitizer = false;
#endif

// ThreadSanitizer keeps a context per fiber, and every executor makes
// thousands: the timed executor with dnn's resident threads runs out of
// memory mappings under it (`gpmx sim dnn` alone fails the same way, with
// no tracking), and hundreds of recoveries in one process, each with its
// own executor, grew one to 24 GB. Not race reports: limits of the
// sanitizer. So under it dnn's timed runs are skipped and few images are
// recovered.
inline bool too_big_for_thread_sanitizer(const std::string& workload) {
  return under_thread_sanitizer && workload == "dnn";
}

struct timed_images {
  apps::workload& w;
  sim::sim_config config;
  scratch_dir dir;
  std::filesystem::path run_dir = dir / "run", crashed = dir / "crashed";
  sim::gpu_model gpu{config};
  sim::durability_tracker tracker{config.l1.line, config.l1.sector};

  timed_images(apps::workload& workload, const sim::sim_config& c) : w(workload), config(c) {
    gpu.track_durability(&tracker);
  }

  // Runs the workload at its test sizes, `extra` changing some (with a
  // seeded bug when named).
  void run(apps::style s, const std::string& bug = {}, const apps::params& extra = {}) {
    const sim::canonical_kernel_memory placement;
    cpu::executor ex({.policy = cpu::schedule::timed, .timing = &gpu});
    apps::env e{ex, run_dir, pm::durability::none};
    e.bug = bug;
    apps::params p = w.small_params();
    for (const auto& [name, value] : extra) p[name] = value;
    w.run(e, apps::resolve_params(w, p), s);
  }

  // Up to `most` of the times at which the run's images change, evenly
  // chosen; `most` from the environment variable `variable` when set.
  std::vector<sim::picos> crash_times(const char* variable, std::size_t most) const {
    const std::vector<sim::picos> times = tracker.log().durable_times();
    if (under_thread_sanitizer) most = std::min<std::size_t>(most, 6);
    if (const char* text = std::getenv(variable)) most = std::stoul(text);
    most = std::min(most, times.size());
    std::vector<sim::picos> out;
    for (std::size_t k = 0; k < most; ++k) out.push_back(times[k * times.size() / most]);
    return out;
  }

  struct outcome {
    bool repaired = false;
    std::optional<std::string> failure;  // why the image did not recover and verify
  };
  // The image a crash at `at` leaves, in a fresh copy of the run's
  // directory, recovered and verified on the cpu executor.
  outcome recover_image(sim::picos at) {
    namespace fs = std::filesystem;
    fs::remove_all(crashed);
    fs::copy(run_dir, crashed, fs::copy_options::recursive);
    std::vector<sim::durable_log::file_image> images = tracker.log().files_at(at);
    for (auto& f : images) f.path = crashed / fs::relative(f.path, run_dir);
    sim::write_images(images);
    cpu::executor ex({.workers = 2});
    const apps::env e{ex, crashed, pm::durability::none};
    outcome o;
    const std::string where = "crash at " + std::to_string(at) + " of " + std::to_string(gpu.totals().end) + " ps: ";
    try {
      o.repaired = w.recover(e).repaired;
      const apps::verify_report v = w.verify(e);
      if (!v.ok) o.failure = where + v.detail;
    } catch (const std::exception& x) {
      o.failure = where + "recovery threw: " + x.what();
    }
    return o;
  }
};

}  // namespace gpmx::test
