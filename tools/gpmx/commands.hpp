#pragma once
// Each gpmx subcommand lives in its own cmd_*.cpp and registers itself here.
#include <CLI/CLI.hpp>

namespace gpmx::cli {

// Adds `gpmx demo` to app.
void register_demo(CLI::App& app);
// Adds `gpmx bench ...` to app.
void register_bench(CLI::App& app);
// Adds `gpmx bench checkpoint` (the checkpointing workloads' baselines) to bench.
void register_bench_workload_checkpoints(CLI::App& bench);
// Adds `gpmx litmus FILE...` to app.
void register_litmus(CLI::App& app);

}  // namespace gpmx::cli
