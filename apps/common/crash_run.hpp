#pragma once
// Runs a piece of work in a forked child and, when asked, kills it with
// SIGKILL right after its Nth crash point (crash_trigger.hpp): the child
// tells the parent (the watchdog) through a pipe and waits to be killed.
// Fork from a process that has started no thread yet (the executor's
// workers are threads): create the executor inside the work.
#include <cstdint>
#include <functional>
#include <string>

namespace gpmx::apps {

struct child_outcome {
  bool killed = false;          // SIGKILLed at the crash point
  std::uint64_t points = 0;     // crash points the child reached (the limit, when killed)
  bool failed = false;          // the work threw (error holds what()) or the child died otherwise
  bool bad_config = false;      // what it threw was a gpmx::config_error (bad arguments)
  std::string error;
  double seconds = 0;           // wall time of the child
};

// crash_after 0: run to the end (counting crash points).
child_outcome run_in_child(std::uint64_t crash_after, const std::function<void()>& work);

}  // namespace gpmx::apps
