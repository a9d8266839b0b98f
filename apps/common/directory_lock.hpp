#pragma once
// One process at a time on a workload's directory. run, recover, verify,
// trace and check hold the lock for their whole work, so a second process
// pointed at the same data is refused (gpmx::lock_busy_error, naming the
// holder's pid) before it touches a file. The lock file is DIR.lock beside
// the directory, not in it: run() replaces the directory's contents.
#include <filesystem>
#include <optional>

#include "gpmx/support/exclusive_lock.hpp"

namespace gpmx::apps {

// The lock on `dir`. With create, makes dir's parent first (run creates the
// data); without, a missing parent means there is no data to protect and
// nothing is locked (the work then reports the missing data itself).
std::optional<exclusive_lock> lock_workload_directory(const std::filesystem::path& dir, bool create);

}  // namespace gpmx::apps
