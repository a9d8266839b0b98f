// gpmx example: a kernel that journals records in persistent memory, run on
// the cpu executor (or on a GPU with --gpu, when built by nvcc), recovered
// and checked; then every crash the persistency model allows is checked.
//
//   journal [--dir DIR] [--gpu] [--run-only]
//
// Exit 0: the run verified and the checker found no failing crash image;
// 1: something failed (printed); 2: bad arguments or an error; 3: --gpu
// asked for but no GPU (or not built with CUDA).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

#include <gpmx/exec/cpu/executor.hpp>
#include <gpmx/exec/gpu_session.hpp>
#include <gpmx/version.hpp>

#include "journal_program.hpp"

namespace {

struct arguments {
  std::filesystem::path dir;
  bool gpu = false;
  bool run_only = false;  // skip the crash check
  bool scratch = false;  // dir is ours to remove at the end
};

arguments parse(int argc, char** argv) {
  arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--gpu") a.gpu = true;
    else if (arg == "--run-only") a.run_only = true;
    else if (arg == "--dir" && i + 1 < argc) a.dir = argv[++i];
    else throw std::invalid_argument("unknown argument '" + arg + "' (usage: journal [--dir DIR] [--gpu] [--run-only])");
  }
  if (a.dir.empty()) {
    // A GPU maps only pools on tmpfs (or DAX), not on a disk file system.
    const std::filesystem::path base =
        a.gpu && std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path();
    a.dir = base / ("gpmx-journal-" + std::to_string(getpid()));
    a.scratch = true;
  }
  return a;
}

// Runs the kernel and checks the journal it left.
bool run_and_verify(const arguments& a) {
  gpmx::cpu::executor ex;
  std::unique_ptr<gpmx::gpu_session> gpu;
  if (a.gpu) gpu = gpmx::gpu_session::open();
  journal::run(gpmx::launch_target(ex, gpu.get()), a.dir / "run");
  const journal::verdict v = journal::recover_and_check(a.dir / "run");
  const bool all = v.ok && v.committed == journal::slots;
  std::printf("run on %s: %s (%llu of %llu records committed)\n", gpu ? gpu->description().c_str() : "the cpu executor",
              all ? "verified" : (v.ok ? "incomplete" : v.problem.c_str()),
              static_cast<unsigned long long>(v.committed), static_cast<unsigned long long>(journal::slots));
  return all;
}

bool check_every_crash(const arguments& a) {
  bool clean = true;
  for (gpmx::check::persist_model model : {gpmx::check::persist_model::epoch, gpmx::check::persist_model::sbrp}) {
    const gpmx::check::check_report r = journal::check_crashes(a.dir / "check", model);
    std::printf("crash check under %s: %zu crash points, %zu images, %zu failed\n", r.model.c_str(), r.crash_points,
                r.images, r.failed_images);
    for (const gpmx::check::check_failure& f : r.failures) {
      std::printf("  failure: %s\n    crash %s\n    %s\n", f.cause.c_str(), f.crash_at.c_str(), f.verdict.c_str());
      for (const std::string& why : f.why) std::printf("    why: %s\n", why.c_str());
    }
    clean = clean && r.failures.empty() && r.images > 0;
  }
  return clean;
}

}  // namespace

int main(int argc, char** argv) {
  arguments a;
  try {
    a = parse(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "journal: %s\n", e.what());
    return 2;
  }
  std::printf("gpmx %s example: journal of %llu records in %s\n", gpmx::version_string,
              static_cast<unsigned long long>(journal::slots), a.dir.c_str());
  int status = 0;
  try {
    const bool ran = run_and_verify(a);
    const bool clean = a.run_only || check_every_crash(a);
    status = ran && clean ? 0 : 1;
  } catch (const gpmx::gpu_unavailable& e) {
    std::fprintf(stderr, "journal: no GPU: %s\n", e.what());
    status = 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "journal: %s\n", e.what());
    status = 2;
  }
  std::error_code ignored;
  if (a.scratch) std::filesystem::remove_all(a.dir, ignored);
  return status;
}
