// Fuzz target: every workload's recovery and verification on damaged files.
// At start-up each workload runs with its small parameters in a child that
// is killed at an early crash point (a real crashed state, logs and all).
// An input is byte 0: the workload (modulo their count), then patches of
// 14 bytes: file (modulo the workload's files), region (modulo the file's
// regions), byte offset (modulo the region's size, 8-aligned), and the
// 8-byte value written there. recover, then verify, must either refuse with
// a pm_error or finish; no other exception, crash or memory error.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/crash_run.hpp"
#include "common/registry.hpp"
#include "fuzz_input.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/errors.hpp"
#include "gpmx/pm/pool.hpp"

namespace {
using namespace gpmx;
namespace fs = std::filesystem;

constexpr std::uint64_t crash_point = 5;
constexpr std::size_t patch_bytes = 14;

fs::path pristine(std::string_view w) { return fuzz::scratch() / "crashed" / w; }

// The workload's files, in name order (lock files are not the workload's data).
std::vector<fs::path> files_of(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() != ".lock") out.push_back(e.path().filename());
  std::sort(out.begin(), out.end());
  return out;
}

void apply_patch(const fs::path& dir, const std::vector<fs::path>& files, const std::uint8_t* p) {
  auto pool = pm::pool::open(dir / files[p[0] % files.size()], pm::durability::none);
  const auto regions = pool.list();
  if (regions.empty()) return;
  const pm::region r = pool.find(regions[p[1] % regions.size()].name);
  if (r.size() < 8) return;
  std::uint32_t offset;
  std::memcpy(&offset, p + 2, 4);
  std::memcpy(r.data() + (offset % (r.size() / 8)) * 8, p + 6, 8);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const auto& w : apps::all_workloads()) {
    const fs::path dir = pristine(w->name());
    fs::create_directories(dir.parent_path());
    // The executor's threads are created inside the child (fork before threads).
    const apps::child_outcome o = apps::run_in_child(crash_point, [&] {
      cpu::executor ex({.workers = 1});
      w->run({.ex = ex, .dir = dir, .mode = pm::durability::none}, w->small_params(), pm::ordering::epoch);
    });
    if (o.failed) {
      std::fprintf(stderr, "fuzz_workload: the set-up run of %s failed: %s\n", std::string(w->name()).c_str(),
                   o.error.c_str());
      std::abort();
    }
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto& all = apps::all_workloads();
  apps::workload& w = *all[data[0] % all.size()];
  const fs::path dir = fuzz::scratch() / "work" / w.name();
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto files = files_of(pristine(w.name()));
  for (const fs::path& f : files) fs::copy_file(pristine(w.name()) / f, dir / f);
  const apps::env e{.ex = fuzz::one_worker(), .dir = dir, .mode = pm::durability::none};
  fuzz::refusing_damaged_input([&] {
    for (std::size_t at = 1; at + patch_bytes <= size && !files.empty(); at += patch_bytes)
      apply_patch(dir, files, data + at);
    (void)w.recover(e);
    (void)w.verify(e);
  });
  return 0;
}
