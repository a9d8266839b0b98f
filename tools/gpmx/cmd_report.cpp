// gpmx report RESULTS.json... -o DIR: figures and a Markdown page from the
// JSON that the benchmarks and the checker write (docs/report.md). The
// drawing is tools/report/gpmx_report.py (matplotlib), whose text is built
// into this program, so an installed gpmx needs no file beside it.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpmx/support/child_process.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "report_script.hpp"

namespace gpmx::cli {
namespace {

struct report_options {
  std::vector<std::string> inputs;
  std::string out;
};

// The script's statuses: 0 done, 1 an output could not be written, 2 a bad
// input (named on stderr), 3 matplotlib missing.
int gpmx_status(const child_exit& end) {
  if (end.exited_with(0)) return exit_ok;
  if (end.exited_with(2)) return exit_usage;
  return exit_failure;
}

int run_report(const report_options& o) {
  const scratch_dir scratch;
  const std::filesystem::path script = scratch / "gpmx_report.py";
  std::ofstream(script) << report_script();
  std::vector<std::string> args{"python3", script.string()};
  args.insert(args.end(), o.inputs.begin(), o.inputs.end());
  args.push_back("-o");
  args.push_back(o.out);
  child_process python = child_process::start("gpmx report: python3", [&args](int) {
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    fmt::print(stderr, "gpmx report: cannot run python3 ({}); install python3 and python3-matplotlib "
                       "(scripts/install-deps.sh)\n", std::strerror(errno));
    return 127;
  });
  return gpmx_status(python.wait());
}

}  // namespace

void register_report(CLI::App& app) {
  auto o = std::make_shared<report_options>();
  auto* sub = app.add_subcommand("report", "Draw PNG figures and a Markdown page from gpmx's JSON results");
  sub->add_option("results", o->inputs, "JSON files written by gpmx bench ... --json or gpmx check --json")
      ->required();
  sub->add_option("-o,--out", o->out, "directory for the figures and report.md (created if missing)")->required();
  sub->callback([o] {
    const int status = run_report(*o);
    if (status != exit_ok) throw exit_request{status};
  });
}

}  // namespace gpmx::cli
