#pragma once
// What every fuzz target shares: a scratch directory of its own for the
// files an input becomes, and the writing of those files.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "gpmx/exec/cpu/executor.hpp"
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

// The input as the file `name` in the scratch directory, handed to f(file)
// under refusing_damaged_input: the shape of every file-reading target.
template <class F>
void refusing_damaged_file(const char* name, const std::uint8_t* data, std::size_t size, F&& f) {
  const std::filesystem::path file = write_input(scratch() / name, data, size);
  refusing_damaged_input([&] { f(file); });
}

// One executor per fuzzing process, for targets that run recovery kernels.
inline cpu::executor& one_worker() {
  static cpu::executor ex({.workers = 1});
  return ex;
}

}  // namespace gpmx::fuzz
