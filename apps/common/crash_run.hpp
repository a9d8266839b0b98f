#pragma once
// Runs a piece of work in a forked child and, when asked, kills it with
// SIGKILL right after its Nth crash point (crash_trigger.hpp): the child
// tells the parent (the watchdog) through a pipe and waits to be killed.
// Or kills it after a wall-clock time, wherever it is (a GPU kernel in
// flight has no crash points the host sees).
// Fork from a process that has started no thread yet (the executor's
// workers are threads): create the executor inside the work.
#include <cstdint>
#include <functional>
#include <string>

namespace gpmx::apps {

struct child_outcome {
  bool killed = false;          // SIGKILLed at the crash point, or when its time was up
  bool timed_out = false;       // killed because kill_after_ms passed
  std::uint64_t points = 0;     // crash points the child reached (the limit, when killed at one)
  bool failed = false;          // the work threw (error holds what()) or the child died otherwise
  bool bad_config = false;      // what it threw was a gpmx::config_error (bad arguments)
  std::string error;
  double seconds = 0;           // wall time of the child
};

// crash_after 0: run to the end (counting crash points). kill_after_ms > 0:
// SIGKILL the child that many milliseconds after it started, unless it
// ended or reached its crash point first. kill_delay_us > 0 (with
// crash_after): the child goes on past its crash point and is SIGKILLed
// that many microseconds later, wherever it is (a GPU kernel in flight);
// if it ends first, the outcome is neither killed nor failed.
child_outcome run_in_child(std::uint64_t crash_after, const std::function<void()>& work,
                           std::uint64_t kill_after_ms = 0, std::uint64_t kill_delay_us = 0);

}  // namespace gpmx::apps
