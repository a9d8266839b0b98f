#pragma once
// The root of every exception gpmx throws. code() says what kind of fault it
// is, so a caller (the command line) handles them all in one place; what()
// names the file, region, value or parameter at fault. Each layer derives its
// own error types from it (exec/errors.hpp, pm/errors.hpp, check/model.hpp,
// trace/trace_file.hpp, litmus/parser.hpp).
#include <stdexcept>
#include <string>

namespace gpmx {

enum class error_code {
  config,        // a configuration, option or parameter value a run cannot use
  usage,         // an interface used against its contract (a bad argument, a misused primitive)
  io,            // the operating system refused (open, map, sync, fork, pipe)
  corrupt_data,  // stored data fails its own format or checksums
  capacity,      // a fixed-size structure is full, or too small for what was asked
  not_found,     // a named thing that does not exist (a region, a saved copy, a log entry)
  deadlock,      // every thread waits and none can proceed
  kernel,        // an exception escaped a kernel thread
  cuda,          // a CUDA runtime call failed
  trace_format,  // bytes that are not a valid trace
  check,         // the crash-consistency checker cannot check what it was given
  litmus_parse,  // litmus text that does not parse
  busy,          // another process holds the lock on what was asked for
};

class error : public std::runtime_error {
 public:
  error(error_code code, const std::string& what) : std::runtime_error(what), code_(code) {}
  error_code code() const noexcept { return code_; }

 private:
  error_code code_;
};

}  // namespace gpmx
