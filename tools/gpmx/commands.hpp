#pragma once
// Each gpmx subcommand lives in its own cmd_*.cpp and registers itself here.
#include <CLI/CLI.hpp>

namespace gpmx::cli {

// Exit statuses, the same for every subcommand (docs/cli.md).
enum exit_status : int {
  exit_ok = 0,
  exit_check_failed = 1,  // a verification, an expectation or a check found a failure
  exit_usage = 2,         // bad arguments: unknown option, workload, parameter or value
  exit_failure = 3,       // the work could not be done: missing or corrupt data, I/O
};
// Thrown by a command that has printed its result and must end with `status`.
struct exit_request {
  int status;
};

// Adds `gpmx demo` to app.
void register_demo(CLI::App& app);
// Adds `gpmx bench ...` to app.
void register_bench(CLI::App& app);
// Adds `gpmx bench workloads` and `gpmx bench kvs` to the bench command.
void register_bench_workloads(CLI::App& bench);
// Adds `gpmx bench checkpoint` (the checkpointing workloads' baselines) to bench.
void register_bench_workload_checkpoints(CLI::App& bench);
void register_bench_tx(CLI::App& bench);
// Adds `gpmx litmus FILE...` to app.
void register_litmus(CLI::App& app);
// Adds `gpmx run|recover|verify` to app.
void register_workload_commands(CLI::App& app);
// Adds `gpmx trace W -o FILE` to app.
void register_trace(CLI::App& app);
// Adds `gpmx bench check` (the checker's figures) to the bench command.
void register_bench_check(CLI::App& bench);
// Adds `gpmx check` (the crash-consistency checker) to app.
void register_check(CLI::App& app);
// Adds `gpmx list` to app.
void register_list(CLI::App& app);
// Adds `gpmx sim` (the timed mode) to app.
void register_sim(CLI::App& app);
// Adds `gpmx report` (figures from JSON results) to app.
void register_report(CLI::App& app);
// Adds `gpmx sim figure N` (SBRP's figures in the timed mode) to the sim command.
void register_sim_figure(CLI::App& sim);

}  // namespace gpmx::cli
