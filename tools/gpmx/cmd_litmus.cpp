// gpmx litmus: program-centric race verdicts (and optionally the relaxed
// machine) for litmus files; see docs/litmus.md.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "commands.hpp"
#include "gpmx/litmus/check.hpp"
#include "gpmx/litmus/parser.hpp"
#include "gpmx/litmus/report.hpp"

namespace gpmx::cli {

namespace {

struct litmus_args {
  std::vector<std::string> files;
  std::vector<std::string> models;
  bool system = false;
  bool json = false;
  bool expect = false;
  bool details = false;
  bool bench = false;
};

void run_litmus(const litmus_args& a) {
  namespace lt = gpmx::litmus;
  lt::check_options opt;
  for (const auto& m : a.models) opt.models.push_back(lt::parse_model(m));
  opt.system = a.system;
  std::vector<lt::check_result> results;
  nlohmann::json all = nlohmann::json::array();
  std::string details;
  std::vector<std::string> failed;
  for (const auto& f : a.files) {
    const lt::program p = lt::parse_file(f);
    lt::check_result r = lt::check_program(p, opt);
    if (a.details) details += lt::format_details(p, r);
    if (!r.expectations_ok()) failed.push_back(f);
    if (a.json) all.push_back(lt::to_json(p, r));
    if (a.bench) {
      // program-centric rate; the machine's time is reported on its own.
      const auto execs = r.sc.executions + (r.pq ? r.pq->executions : 0);
      const double machine = r.system ? r.system->seconds : 0.0;
      const double sc = r.seconds - machine;
      fmt::print("{}: {} executions ({} of P{}) in {:.3f} s: {:.0f} executions/s{}\n", r.name, execs, r.sc.executions,
                 r.pq ? fmt::format(", {} of Pq", r.pq->executions) : std::string{}, sc,
                 sc > 0 ? static_cast<double>(execs) / sc : 0.0,
                 r.system ? fmt::format("; relaxed machine: {} states in {:.3f} s", r.system->states, machine)
                          : std::string{});
    }
    results.push_back(std::move(r));
  }
  if (a.json) {
    fmt::print("{}\n", all.dump(2));
  } else if (!a.bench) {
    fmt::print("{}", lt::format_table(results));
    if (!details.empty()) fmt::print("\n{}", details);
  }
  if (a.expect && !failed.empty()) {
    std::string msg = "expected verdicts not met in:";
    for (const auto& f : failed) msg += " " + f;
    fmt::print(stderr, "gpmx: {} (rerun with --details)\n", msg);
    throw exit_request{exit_check_failed};
  }
}

}  // namespace

void register_litmus(CLI::App& app) {
  auto args = std::make_shared<litmus_args>();
  auto* sub = app.add_subcommand("litmus", "Check litmus tests against DRF0, DRF1, DRFrlx and HRF");
  // A file that cannot be read is an I/O error (status 3), as for check --trace.
  sub->add_option("files", args->files, "litmus files")->required();
  sub->add_option("--model", args->models, "drf0, drf1, drfrlx, hrf-direct or hrf-indirect (repeatable; default all)");
  sub->add_flag("--system", args->system, "also run the relaxed machine and check the DRFrlx theorem");
  sub->add_flag("--json", args->json, "print JSON instead of a table");
  sub->add_flag("--expect", args->expect, "exit with an error when a file's expected verdicts are not met");
  sub->add_flag("--details", args->details, "print a witness execution for every race");
  sub->add_flag("--bench", args->bench, "print executions enumerated per second instead of the table");
  sub->callback([args] { run_litmus(*args); });
}

}  // namespace gpmx::cli
