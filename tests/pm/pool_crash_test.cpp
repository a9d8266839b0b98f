// Crash and restart: a child process changes the namespace while the parent
// kills it (SIGKILL) at random points; the parent reopens the pool and
// requires the namespace of the last completed operation or of the one
// after it. GPMX_CRASH_POINTS raises the number of kill points (default 200).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <random>

#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "kill_child.hpp"

namespace {
using namespace gpmx::pm;
using gpmx::scratch_dir;

using model = std::map<std::string, std::uint64_t>;  // name -> size

// The i-th operation of the sequence, applied to a model and to a pool.
struct op {
  bool create;
  std::string name;
  std::uint64_t size;
};

op op_at(std::uint64_t i, const model& m) {
  std::mt19937_64 r(i * 7919 + 1);
  if (m.size() < 3 || (m.size() < 12 && r() % 3 != 0))
    return {true, fmt::format("r{}", i), 4096 * (1 + r() % 8)};
  auto it = m.begin();
  std::advance(it, std::ptrdiff_t(r() % m.size()));
  return {false, it->first, 0};
}

void apply_op(model& m, const op& o) {
  if (o.create) m[o.name] = o.size;
  else m.erase(o.name);
}

model model_after(std::uint64_t n) {
  model m;
  for (std::uint64_t i = 0; i < n; ++i) apply_op(m, op_at(i, m));
  return m;
}

model read_pool(const std::filesystem::path& path) {
  pool p = pool::open(path, durability::msync);
  model m;
  for (const auto& r : p.list()) m[r.name] = r.size;
  return m;
}

// Applies operations from `start` on until killed, reporting each one done.
template <class Report>
void operate_forever(const std::filesystem::path& path, std::uint64_t start, Report&& report) {
  pool p = pool::open(path, durability::msync);
  model m = model_after(start);
  for (std::uint64_t i = start;; ++i) {
    const op o = op_at(i, m);
    if (o.create) p.create_region(o.name, o.size);
    else p.remove_region(o.name);
    apply_op(m, o);
    report(i + 1);
  }
}

TEST(PoolCrash, NamespaceSurvivesKillsAtRandomPoints) {
  scratch_dir dir;
  const auto path = dir / "crash.pool";
  { pool::create(path, 4 << 20, {.mode = durability::msync, .table_capacity = 32}); }
  const char* env = std::getenv("GPMX_CRASH_POINTS");
  const int points = env ? std::atoi(env) : 200;
  std::mt19937_64 rng(2024);
  std::uint64_t confirmed = 0;  // operations known to be in the pool
  int saw_next = 0;
  for (int k = 0; k < points; ++k) {
    // Let the child complete 0 to 5 operations, then kill it wherever it is.
    const auto run = gpmx::test::run_and_kill(rng, confirmed, rng() % 6, 300,
                                              [&](auto report) { operate_forever(path, confirmed, report); });
    ASSERT_TRUE(run.killed) << "the child ended on its own";
    const std::uint64_t last = run.last_reported;

    const model found = read_pool(path);
    if (found == model_after(last)) {
      confirmed = last;
    } else if (found == model_after(last + 1)) {
      confirmed = last + 1;  // committed, killed before it could report
      ++saw_next;
    } else {
      FAIL() << "kill point " << k << ": the namespace matches neither operation " << last << " nor " << last + 1;
    }
  }
  EXPECT_GT(confirmed, std::uint64_t(points));  // the sequence kept moving across kills
  RecordProperty("kills_after_an_unreported_commit", saw_next);
}

}  // namespace
