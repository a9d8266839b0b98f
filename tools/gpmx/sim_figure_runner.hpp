#pragma once
// Runs many `gpmx` invocations of this very executable as child processes,
// a number at a time: a figure's simulations are independent, so a sweep
// uses every core. Each child writes its output to its own log file and
// dies with this process.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpmx/support/child_process.hpp"

namespace gpmx::cli {

struct child_run {
  std::vector<std::string> args;  // after the program name
  std::filesystem::path log;      // its stdout and stderr
  child_exit exit;                // filled in by run_children
};

// Runs every run, at most `jobs` at a time; `progress(done, total)` after
// each one ends, and `tick()` (when given) at least twice a second while
// they run. Throws gpmx::error (io) when this executable cannot be found or
// a child cannot be started.
void run_children(std::vector<child_run>& runs, unsigned jobs,
                  const std::function<void(std::size_t, std::size_t)>& progress,
                  const std::function<void()>& tick = {});

}  // namespace gpmx::cli
