#include "verify_command.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "child_status.hpp"
#include "gpmx/support/child_process.hpp"

namespace gpmx::cli {
namespace {

namespace fs = std::filesystem;

// Beside the gpmx program: the build tree's lib/, or the install prefix's
// library directory (GPMX_INSTALLED_LIB_DIR, relative to the program's).
fs::path preload_library() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& dir : {exe.parent_path() / "../lib", exe.parent_path() / GPMX_INSTALLED_LIB_DIR}) {
    const fs::path lib = (dir / "libgpmx_read_preload.so").lexically_normal();
    if (fs::exists(lib, ec)) return lib;
  }
  return {};
}

}  // namespace

check::image_target command_target(const std::string& cmd) {
  return [cmd](const fs::path& dir) {
    ::setenv("GPMX_IMAGE_DIR", dir.c_str(), 1);
    const fs::path err = fs::path(dir.string() + ".stderr");
    // Through run_shell, which dies with this image's child, so a timeout or
    // a signal leaves no command behind.
    const child_exit end = run_shell(fmt::format("( {} ) 2>'{}'", cmd, err.string()));
    if (end.exited_with(0)) return check::image_verdict{true, {}};
    std::string detail = fmt::format("'{}' {}", cmd, describe_exit(end));
    const std::string tail = last_lines(err, 5);
    if (!tail.empty()) detail += "; its stderr ended with: " + tail;
    return check::image_verdict{false, detail};
  };
}

check::image_target command_traced_target(const std::string& cmd, std::uint32_t granularity) {
  const fs::path lib = preload_library();
  if (lib.empty()) return {};
  return [cmd, lib, granularity](const fs::path& dir) {
    const fs::path out = fs::path(dir.string() + ".reads");
    fs::remove(out);
    ::setenv("GPMX_READS_OUT", out.c_str(), 1);
    ::setenv("GPMX_READS_GRANULARITY", std::to_string(granularity).c_str(), 1);
    const char* before = std::getenv("LD_PRELOAD");
    const std::string preload = lib.string() + (before && *before ? std::string(":") + before : std::string());
    ::setenv("LD_PRELOAD", preload.c_str(), 1);
    check::image_verdict v = command_target(cmd)(dir);
    std::ifstream in(out, std::ios::binary);
    if (!in) {
      v.detail += "; the command left no reads (a statically linked program, or one that did not exit normally, "
                  "cannot be tracked)";
      return v;
    }
    std::ostringstream text;
    text << in.rdbuf();
    v.reads = check::decode_pool_reads(text.str());
    v.reads->reader = "the verify command";
    return v;
  };
}

}  // namespace gpmx::cli
