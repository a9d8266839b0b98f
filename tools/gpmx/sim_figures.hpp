#pragma once
// SBRP's evaluation (sections 7.2-7.3, Figures 6-11), and BaM's Figure 8, as `gpmx sim` runs:
// which configurations each figure compares, on which workloads and sizes,
// how a bar is computed from the runs, and the paper's numbers where its
// text gives them (docs/reproduction.md).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpmx::cli::figures {

// One way to run a workload: its ordering style and configuration changes.
struct config {
  std::string style;              // epoch or sbrp; empty: the workload has no persistency style (gpmx sim's default)
  std::vector<std::string> sets;  // --set KEY=VALUE
  std::vector<std::string> args = {};  // more of gpmx sim's options (Figure 11: the crash and the recovery)
};

enum class metric : std::uint8_t {
  speedup,         // kernel time of the baseline over the subject's (higher: the subject is faster)
  pm_read_misses,  // the subject's L1 read misses on PM data over the baseline's (lower: fewer)
  scope_share,     // share of SBRP's gain over epoch that scopes give: (promoted - sbrp) / (epoch - sbrp)
  recovery_time,   // the subject's recovery kernel time over the baseline's (higher: the subject recovers slower)
};

struct series_def {
  std::string name;
  metric m = metric::speedup;
  config subject, baseline;
  config promoted;  // scope_share only: the subject with every block scope at device scope
};

struct figure_def {
  std::string id;  // "6", "10a", ...
  std::string title;
  std::string value_label;
  std::vector<std::string> workloads;
  std::vector<series_def> series;
  // The paper's value of (workload, series), "mean" for its average, where
  // its text states one.
  std::map<std::pair<std::string, std::string>, double> paper;
  std::string paper_says;  // what the paper reports in words
  // Sizes of this figure's own (-p NAME=VALUE by workload), where they are
  // not workload_params(workload).
  std::map<std::string, std::vector<std::string>> sizes = {};
  // More of gpmx sim's options by workload, after the series' own (Figure
  // 11: where each workload's crash falls).
  std::map<std::string, std::vector<std::string>> workload_args = {};
};

// Every figure gpmx reproduces, in order; find() throws config_error
// naming the known ids.
const std::vector<figure_def>& all();
const figure_def& find(const std::string& id);

// The sizes each workload runs at in the figures (-p NAME=VALUE).
std::vector<std::string> workload_params(const std::string& workload);
// Whether f runs anything in the epoch style: SBRP's epoch or GPM bars, the
// runs --artifact-baseline changes.
bool has_epoch_runs(const figure_def& f);
// The sizes workload w runs at in figure f: f's own, else workload_params(w).
std::vector<std::string> figure_params(const figure_def& f, const std::string& w);

}  // namespace gpmx::cli::figures
