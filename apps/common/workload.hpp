#pragma once
// A recoverable workload as the command line, the tests and the benchmarks
// see it. Each workload keeps its PM files in one directory and records its
// parameters and style there, so recover and verify need only the directory.
//
// Life cycle: run() creates the files (replacing old ones) and runs to the
// end; a crash can stop it at any crash point (see crash_trigger.hpp);
// recover() repairs what the crash left (undoes a batch in flight, or resumes
// and finishes an interrupted computation) and is itself crash-safe;
// verify() compares the PM state with a sequential reference.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/ordering.hpp"
#include "gpmx/pm/pool.hpp"

namespace gpmx::apps {

// How a workload orders its persists (docs/persistency-models.md):
// epoch: gpm_persist barriers, as GPM writes it;
// sbrp: ofence and scoped pacq/prel, as SBRP writes it.
using style = pm::ordering;
std::string_view to_string(style s);
// "epoch" or "sbrp"; throws gpmx::config_error naming the text otherwise.
style parse_style(std::string_view text);

struct param_spec {
  std::string name;
  std::uint64_t default_value;
  std::string help;
};
using params = std::map<std::string, std::uint64_t, std::less<>>;

// A deliberate persistency bug a workload can be run with, so that
// `gpmx check` can be shown to find it (docs/check.md). The buggy code is in
// style `s`; under persistency model `model` ("epoch", "sbrp"; a scoped bug
// names "sbrp" and is reported as scoped) a crash can leave an image that
// recovery cannot repair.
struct seeded_bug {
  std::string name;         // what --bug takes, e.g. "no-log-fence"
  std::string description;  // one line: what the careless programmer did
  style s = style::epoch;
  std::string model;
};

// What every call gets.
struct env {
  launch_target ex;  // where kernels run: the cpu executor, or a GPU
  std::filesystem::path dir;  // the workload's own directory
  pm::durability mode = pm::durability::msync;
  std::function<void(double fraction_done)> progress = {};  // may be empty
  std::string bug = {};  // run(): a seeded bug's name, or empty for the correct code
  bool has_bug(std::string_view name) const { return bug == name; }
  void report(double fraction) const {
    if (progress) progress(fraction);
  }
};

struct run_report {
  std::uint64_t operations = 0;  // what throughput counts (see unit)
  std::string unit;              // "SETs", "rows", "elements", "edges"...
  double seconds = 0;            // the workload's kernels and commits, not its set-up
  std::uint64_t bytes_persisted = 0;
  std::uint64_t batches = 0;     // batches or iterations run
  // Figures of this workload's own (name, value), shown by gpmx run and read
  // by the benches: a transaction benchmark's aborts or buffer occupancy.
  std::vector<std::pair<std::string, double>> figures;
};
struct recover_report {
  bool repaired = false;  // whether there was anything to do
  std::string what;       // one line: what recovery did
  double seconds = 0;
};
struct verify_report {
  bool ok = false;
  std::uint64_t checked = 0;  // items compared with the reference
  std::string detail;         // one line; on failure names the first mismatch
};

class workload {
 public:
  virtual ~workload() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual std::vector<param_spec> parameters() const = 0;
  // Sizes for the tests: a whole run takes milliseconds.
  virtual params small_params() const = 0;

  // p holds every parameter (see resolve_params).
  virtual run_report run(const env& e, const params& p, style s) = 0;
  // Throws pm::pm_error when e.dir holds no complete set-up of this workload.
  virtual recover_report recover(const env& e) = 0;
  virtual verify_report verify(const env& e) = 0;

  // CPU-assisted baseline (GPM's CAP-mm): the same operations computed in
  // DRAM, the whole structure copied to PM and persisted from the host after
  // every batch. Workloads without one return false from has_cap_mm.
  virtual bool has_cap_mm() const { return false; }
  virtual run_report run_cap_mm(const env& e, const params& p);

  // The seeded bugs run() knows (env::bug); none by default.
  virtual std::vector<seeded_bug> seeded_bugs() const { return {}; }
};

// The seeded bug `name` of w; throws config_error naming the bug and listing
// w's bugs when it has none of that name.
seeded_bug find_seeded_bug(const workload& w, std::string_view name);
// The seeded bug a run is asked for: none when e.bug is empty, else w's bug
// e.bug, which must be written in style s. Throws config_error naming the bug
// when w has none of that name (find_seeded_bug) or when its style is not s.
// run() calls it before writing anything.
std::optional<seeded_bug> requested_bug(const workload& w, const env& e, style s);

// The defaults with `given` applied; throws config_error naming an unknown
// parameter and listing the known ones.
params resolve_params(const workload& w, const params& given);
// "name=value" into given; throws config_error naming the text when malformed.
void parse_param(std::string_view text, params& given);

}  // namespace gpmx::apps
