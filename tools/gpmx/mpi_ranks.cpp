#include "mpi_ranks.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "gpmx/exec/errors.hpp"
#include "option_checks.hpp"
#ifdef GPMX_HAVE_MPI
#include "gpmx/scale/mpi_transport.hpp"
#endif

namespace gpmx::cli {

std::unique_ptr<scale::rank_transport> join_mpi_ranks(const std::string& command) {
#ifdef GPMX_HAVE_MPI
  auto ranks = std::make_unique<scale::mpi_transport>(nullptr, nullptr);
  if (ranks->size() < 2)
    throw config_error(fmt::format("{} --mpi: this process is the only MPI rank; launch it with two or more, "
                                   "e.g. mpirun -np 4 gpmx {} ... --mpi (as root add --allow-run-as-root), or "
                                   "srun in a Slurm job (docs/scale.md)", command, command));
  return ranks;
#else
  throw config_error(fmt::format("{} --mpi: this gpmx was built without MPI; install an MPI library (Debian: "
                                 "apt-get install libopenmpi-dev openmpi-bin) and build again (GPMX_MPI=AUTO finds it; "
                                 "GPMX_MPI=ON makes its absence an error)", command));
#endif
}

void add_mpi_options(CLI::App* cmd, bool& mpi, double& rank_timeout, const std::string& does) {
  cmd->add_flag("--mpi", mpi, "under mpirun or srun: " + does + " (docs/scale.md)");
  cmd->add_option("--rank-timeout", rank_timeout, "with --mpi: seconds of silence after which a rank counts as lost "
                                                  "and its share is done again by the others")
      ->capture_default_str()
      ->check(positive_seconds());
  cmd->get_option("--rank-timeout")->needs(cmd->get_option("--mpi"));
}

std::string rank_directory(const std::string& base, unsigned rank) {
  if (rank == 0) return base;
  return (std::filesystem::path(base) / fmt::format("rank-{}", rank)).string();
}

}  // namespace gpmx::cli
