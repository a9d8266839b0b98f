// Fuzz target: the litmus parser. The input is litmus text; parse_program()
// must refuse it with a parse_error (file:line:col) or give a program.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpmx/litmus/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpmx;
  try {
    (void)litmus::parse_program(std::string(reinterpret_cast<const char*>(data), size), "fuzz.litmus");
  } catch (const litmus::parse_error&) {
  }
  return 0;
}
