#pragma once
// Workload runs killed part-way through `gpmx run --crash-after N`, the state
// the corruption tests damage.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gpmx/pm/hcl_log.hpp"
#include "gpmx/pm/pool.hpp"
#include "reliability/gpmx_process.hpp"

namespace gpmx::test {

// Replays every pool's persist journal under `dir` into its pool (what any
// open does first): on a device, what a crash left on "PM" is a pool and its
// journal, and the corruption tests damage the pool's words. After this a
// refused recover finds nothing to replay, so it must change no file.
inline void settle_journals(const std::filesystem::path& dir) {
  const std::string suffix = ".journal";
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().string();
    if (!e.is_regular_file() || name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    pm::pool::open(name.substr(0, name.size() - suffix.size()), pm::durability::none);
  }
}

// `gpmx run W ARGS --crash-after N`: the run killed at crash point N (with two
// workers storing at once, the report may name a point just past N), its
// journals replayed.
inline void crashed_run(const std::filesystem::path& cwd, const std::string& w, const std::vector<std::string>& args,
                        int crash_after) {
  std::vector<std::string> all = {"run", w, "--quiet", "--crash-after", std::to_string(crash_after)};
  all.insert(all.end(), args.begin(), args.end());
  const auto r = run_gpmx(all, cwd);
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_NE(r.output.find("SIGKILL after crash point"), std::string::npos) << r.output;
  settle_journals(cwd / "gpmx-data");
}

// Whether some slot of the HCL log holds a whole entry of `entry_words` words.
inline bool holds_undo_entry(const std::filesystem::path& log_file, std::uint32_t entry_words) {
  auto log = pm::hcl_log::open(log_file, pm::durability::none);
  const pm::hcl_view v = log.view();
  for (std::uint64_t b = 0; b < v.blocks; ++b)
    for (std::uint32_t t = 0; t < v.threads; ++t)
      if (v.tails[v.slot(b, t)] >= entry_words) return true;
  return false;
}

// crashed_run at the first crash point from `first` on (in steps of `step`)
// that leaves an undo entry in W's log (W.log): which store that is depends
// on how the threads interleave (under group commit every thread writes its
// entry before any advances its tail).
inline void crashed_run_with_entries(const std::filesystem::path& cwd, const std::string& w,
                                     const std::vector<std::string>& args, int first, int step,
                                     std::uint32_t entry_words) {
  for (int n = first; n < first + 20 * step; n += step) {
    std::filesystem::remove_all(cwd / "gpmx-data");
    ASSERT_NO_FATAL_FAILURE(crashed_run(cwd, w, args, n));
    if (holds_undo_entry(cwd / "gpmx-data" / w / (w + ".log"), entry_words)) return;
  }
  FAIL() << "no crash point of " << w << " from " << first << " left an undo entry";
}

}  // namespace gpmx::test
