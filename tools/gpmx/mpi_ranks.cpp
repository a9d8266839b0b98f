#include "mpi_ranks.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "gpmx/exec/errors.hpp"
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

std::string rank_directory(const std::string& base, unsigned rank) {
  if (rank == 0) return base;
  return (std::filesystem::path(base) / fmt::format("rank-{}", rank)).string();
}

}  // namespace gpmx::cli
