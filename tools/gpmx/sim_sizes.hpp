#pragma once
// gpmx sim starts from a workload's test sizes; a user who sets a few
// parameters with -p may take the rest for the workload's own defaults
// (an A1-sized run then ran over 64 accounts). Says so before the run.
#include <string>
#include <string_view>
#include <vector>

namespace gpmx::cli {

// On stderr, when -p overrides sit on the test sizes and the run is not quiet.
void note_test_sizes(std::string_view workload, const std::vector<std::string>& param_texts, bool full_size,
                     bool quiet);

}  // namespace gpmx::cli
