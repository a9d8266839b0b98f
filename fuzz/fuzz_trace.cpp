// Fuzz target: the trace file reader. The input is a trace file's bytes;
// decode() must refuse it with a trace_file_error or give a trace whose text
// form (every event formatted, as `gpmx trace --dump` prints it) can be made.
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "gpmx/trace/dump.hpp"
#include "gpmx/trace/trace_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpmx;
  try {
    const trace::trace t = trace::decode({data, size}, "fuzz input");
    std::ostringstream out;
    trace::dump(t, out);
  } catch (const trace::trace_file_error&) {
  }
  return 0;
}
