#pragma once
// What every fuzz target shares: a scratch directory of its own for the
// files an input becomes, and the writing of those files.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::fuzz {

// One scratch directory per fuzzing process, removed at exit.
inline const std::filesystem::path& scratch() {
  static const scratch_dir dir;
  return dir.path();
}

// The input as the whole content of `file` (replacing what was there).
inline std::filesystem::path write_input(const std::filesystem::path& file, const std::uint8_t* data,
                                         std::size_t size) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return file;
}

// Runs f; a pm_error (bad input refused), or a kernel that stopped on one,
// is the expected outcome of a damaged file and is swallowed. Anything else
// escapes, and libFuzzer reports it with the input.
template <class F>
void refusing_damaged_input(F&& f) {
  try {
    f();
  } catch (const pm::pm_error&) {
  } catch (const kernel_error& e) {
    try {
      std::rethrow_exception(e.cause());
    } catch (const pm::pm_error&) {
    }
  }
}

}  // namespace gpmx::fuzz
