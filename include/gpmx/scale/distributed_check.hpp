#pragma once
// gpmx check across the ranks of an MPI job (docs/scale.md). Every rank
// rebuilds the same trace, persist order and images (a trace is
// deterministic for its seed) and checks only its share of them; ranks
// exchange findings, never images, and rank 0 merges them into the report
// a single process would give. A rank that falls silent for longer than the
// timeout (it died, or hangs) is reported with the images it held, and
// those are checked again, in a further round, by the ranks still there.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpmx/check/check_run.hpp"
#include "gpmx/scale/rank_transport.hpp"

namespace gpmx::scale {

struct lost_rank {
  unsigned rank = 0;
  unsigned round = 0;                     // the round it was lost in (0: the first)
  std::string why;                        // "sent nothing for 130 s"
  std::uint64_t images_held = 0;          // images it was to check in that round
  std::vector<unsigned> checked_again_by; // the ranks that checked them in the next round
};

struct distributed_report {
  check::check_report report;
  unsigned ranks = 0;
  unsigned rounds = 1;
  std::vector<std::uint64_t> images_checked;  // by rank, over every round whose findings were used
  std::vector<lost_rank> lost;
  std::uint64_t bytes_sent = 0, bytes_received = 0;  // rank 0's: every message goes to or from it
  std::uint64_t findings_bytes = 0;                  // of those, the findings (the rest: heartbeats, rounds)
};

struct distributed_options {
  // Silence after which a rank counts as lost. Ranks say they are alive at
  // least once a second while they check; a single image may take up to
  // check_options::timeout_s, so keep this above that.
  double rank_timeout_s = 150;
};

// Called on every rank with the same trace and options (o.work_dir, root
// and keep_failures per rank: ranks on one machine must not share them).
// Rank 0 returns the merged report; the other ranks return nothing once
// rank 0 is done with them. Throws check::check_error (config) for options
// a split check cannot honour (stop_at_first), gpmx::error (io) when rank 0
// falls silent.
std::optional<distributed_report> check_across_ranks(rank_transport& ranks, const trace::trace& t,
                                                     const check::image_target& target, const check::check_options& o,
                                                     const distributed_options& d);

}  // namespace gpmx::scale
