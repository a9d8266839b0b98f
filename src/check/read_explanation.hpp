#pragma once
// A failing image that no rule explains, told through what its recovery
// read (read_tracker): of the granules recovery read that the program had
// stored to before the crash, those whose latest store the image lost,
// each with the store recovery saw instead.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gpmx/check/persist_order.hpp"
#include "gpmx/check/pool_reads.hpp"
#include "gpmx/trace/event.hpp"

namespace gpmx::check {

struct read_explanation {
  std::size_t granules_read = 0;   // read by recovery, stored to by the program before the crash
  std::size_t granules_stale = 0;  // of those, whose latest store was lost
  std::vector<std::string> stale;  // the first few, one per lost store
  std::string summary;             // one clause for the cause
};

// `reads` came from recovering `image` (crash at `position`) materialized
// under `image_dir`; the trace's pool paths are relative to `root`.
read_explanation explain_reads(const trace::trace& t, const persist_order& order, const store_set& image,
                               std::uint64_t position, const pool_reads& reads,
                               const std::filesystem::path& image_dir, const std::filesystem::path& root);

}  // namespace gpmx::check
