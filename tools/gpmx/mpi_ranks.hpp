#pragma once
// The MPI side of --mpi (gpmx check, gpmx bench check; docs/scale.md):
// joins the job's ranks, or says exactly why it cannot.
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "gpmx/scale/rank_transport.hpp"

namespace gpmx::cli {

// Initializes MPI and returns this process's transport. Throws config_error
// naming `command` when this gpmx was built without MPI, or when it runs as
// the only rank (not launched by mpirun or srun with two or more).
std::unique_ptr<scale::rank_transport> join_mpi_ranks(const std::string& command);

// --mpi (what it splits: `does`) and --rank-timeout (needing --mpi) on `cmd`.
void add_mpi_options(CLI::App* cmd, bool& mpi, double& rank_timeout, const std::string& does);

// Where rank `rank` keeps its own scratch under `base`: base itself for rank
// 0 (its report is a single process's), base/rank-N for the others, so
// ranks on one machine never share files.
std::string rank_directory(const std::string& base, unsigned rank);

}  // namespace gpmx::cli
