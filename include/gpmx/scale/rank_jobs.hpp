#pragma once
// Independent jobs spread over the ranks of an MPI job: the sweeps of
// benchmark configurations (gpmx bench check --mpi) and, once they exist,
// of simulations. Job j runs on rank j mod ranks; each result goes to rank
// 0 as soon as it is done. A rank silent for longer than the timeout is
// reported with the jobs it had not delivered, and rank 0 runs those itself.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpmx/scale/distributed_check.hpp"
#include "gpmx/scale/rank_transport.hpp"

namespace gpmx::scale {

// Runs job j and returns its result as bytes; calls `alive` now and then
// (at least every few seconds) so that the rank is not taken for lost.
using rank_job = std::function<std::string(std::size_t job, const std::function<void()>& alive)>;

struct job_results {
  std::vector<std::string> results;  // by job
  std::vector<lost_rank> lost;       // images_held counts jobs here
};

// Called on every rank with the same jobs. Rank 0 returns every result;
// the others return nothing once rank 0 has them all.
std::optional<job_results> run_jobs_across_ranks(rank_transport& ranks, std::size_t jobs, const rank_job& run,
                                                 double rank_timeout_s);

}  // namespace gpmx::scale
