#pragma once
// A workload as the checker sees it: one traced run (trace schedule, one OS
// thread, durability none) and, for each crash image, its own recovery and
// verification.
#include <filesystem>

#include "common/workload.hpp"
#include "gpmx/check/check_run.hpp"
#include "gpmx/check/image_jobs.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::apps {

// Runs w in `root`/W (replaced) with the given parameters, style and
// seeded bug (empty: none) under the trace schedule and returns the trace,
// with the host's stores and persists and the pool images. Check it with
// check::check_options::root = `root`, so that an image's directory D holds D/W
// and `gpmx recover W --data D` works on it.
trace::trace trace_workload(workload& w, const params& p, style s, const std::string& bug, std::uint64_t seed,
                            const std::filesystem::path& root);

// Recovery then verification of w on an image's directory D (its files in
// D/W), with one worker and durability none. A verification that fails, or
// a recovery that throws, fails the image.
check::image_target workload_target(workload& w);
// The same, with recovery run under a read_tracker (granules of
// `granularity` bytes): the verdict carries what recovery read. Empty
// where read tracking is not available (read_tracker::available()).
check::image_target workload_traced_target(workload& w, std::uint32_t granularity);

// Both steps: traces w in o.root/W, then checks the trace with w's recovery
// (and, unless o has one, workload_traced_target for unexplained failures).
check::check_report check_workload(workload& w, const params& p, style s, const std::string& bug,
                                   std::uint64_t seed, const check::check_options& o);

}  // namespace gpmx::apps
