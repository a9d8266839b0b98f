#include "figure_plot.hpp"

#include <fstream>

#include <fmt/format.h>

#include "child_status.hpp"
#include "gpmx/support/child_process.hpp"

namespace gpmx::cli {
namespace {

// Grouped bars: one group per workload and one for the mean, one bar per
// series; the paper's value, where known, as a black tick on its bar.
constexpr const char* plot_script = R"PY(
import json, math, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig_json, out = sys.argv[1], sys.argv[2]
f = json.load(open(fig_json))
groups = f["workloads"] + ["mean"]
series = f["series"]
share = "share" in f["value"]
width = 0.8 / max(1, len(series))
plt.figure(figsize=(max(6, 1.3 * len(groups) * max(1, len(series)) / 3), 3.6))
for k, s in enumerate(series):
    vals, paper = [], []
    for b in s["bars"]:
        vals.append(b["gpmx"] if b["gpmx"] is not None else math.nan)
        paper.append(b.get("paper", math.nan))
    vals.append(s["mean"] if s["mean"] is not None else math.nan)
    paper.append(s.get("paper_mean", math.nan))
    if share:
        vals = [100 * v for v in vals]
        paper = [100 * v for v in paper]
    xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(groups))]
    plt.bar(xs, vals, width, label=s["name"])
    px = [x for x, p in zip(xs, paper) if not math.isnan(p)]
    py = [p for p in paper if not math.isnan(p)]
    plt.scatter(px, py, marker="_", s=200, color="black", zorder=3,
                label="paper" if k == 0 else None)
if not share:
    plt.axhline(1.0, color="grey", linewidth=0.8)
plt.xticks(range(len(groups)), groups)
plt.ylabel(f["value"] + (" (%)" if share else ""))
sets = f.get("sets") or []
plt.title("Figure " + f["figure"] + ": " + f["title"] + (" [" + ", ".join(sets) + "]" if sets else ""), fontsize=9)
plt.legend(fontsize=7, ncol=min(4, len(series) + 1))
plt.tight_layout()
plt.savefig(out, dpi=150)
)PY";

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string plot_figure(const std::filesystem::path& json, const std::filesystem::path& png) {
  const std::filesystem::path py = png.parent_path() / "plot_figure.py";
  std::ofstream(py) << plot_script;
  const std::filesystem::path log = png.parent_path() / "plot_figure.log";
  // The first python3 on the path, unless it lacks matplotlib and the
  // system's (where Debian's python3-matplotlib installs) has it.
  const child_exit e = run_shell(fmt::format(
      "py=python3; python3 -c 'import matplotlib' 2>/dev/null || {{ [ -x /usr/bin/python3 ] && py=/usr/bin/python3; }}; "
      "\"$py\" {} {} {} > {} 2>&1",
      quoted(py.string()), quoted(json.string()), quoted(png.string()), quoted(log.string())));
  if (e.exited_with(0)) return fmt::format("chart: {}", png.string());
  return fmt::format("no chart ({}): python3 with matplotlib is needed (scripts/install-deps.sh installs "
                     "python3-matplotlib); {}",
                     describe_exit(e), last_lines(log, 1));
}

}  // namespace gpmx::cli
