#pragma once
// The example's host side: create the journal's pool and run the kernel,
// recover after a crash, check the journal is consistent, and check the
// whole program for crash consistency with gpmx's checker.
#include <cstdint>
#include <filesystem>
#include <string>

#include <gpmx/check/check_run.hpp>
#include <gpmx/exec/launch_target.hpp>
#include <gpmx/trace/event.hpp>

namespace journal {

inline constexpr const char* pool_file = "journal.pool";
inline constexpr unsigned blocks = 2, threads_per_block = 4;
inline constexpr std::uint64_t slots = blocks * threads_per_block;

// Creates the pool in `dir` (replacing one there) and appends every record.
void run(const gpmx::launch_target& target, const std::filesystem::path& dir);

// What recovery found, or why the journal is not consistent.
struct verdict {
  bool ok = false;
  std::uint64_t committed = 0;  // records committed and intact
  std::string problem;          // when !ok
};

// Recovery after a crash: an uncommitted slot's record is erased (it may be
// half written), then every committed record must be intact and hold its
// key's value. Opens the pool in `dir`.
verdict recover_and_check(const std::filesystem::path& dir);

// Runs the program under the trace schedule in a scratch directory and
// checks every crash image the persistency model allows.
gpmx::check::check_report check_crashes(const std::filesystem::path& scratch, gpmx::check::persist_model model);

}  // namespace journal
