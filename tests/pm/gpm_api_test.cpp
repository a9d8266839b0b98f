// GPM's API names over gpmx: the gpKVS undo-log pattern of GPM's Figure 6,
// written with gpm_map, gpmlog_* and gpm_persist.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/gpm.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::gpm;

struct kv {
  std::uint64_t key, value;
};

TEST(GpmApi, UndoLoggedUpdateThenRecovery) {
  scratch_dir dir;
  const std::string table_path = (dir / "kvs.pm").string(), log_path = (dir / "kvs.log").string();
  const std::size_t n = 512;
  auto* table = static_cast<kv*>(gpm_map(table_path.c_str(), n * sizeof(kv), true));
  for (std::size_t i = 0; i < n; ++i) table[i] = {i, i * 10};
  gpmlog* log = gpmlog_create_hcl(log_path.c_str(), 1 << 20, 2, 256);
  cpu::executor ex({.workers = 2});
  // Update every pair after logging its old value (GPM Figure 6a).
  ex.launch({dim3(2), dim3(256)}, [](auto& t, gpmlog l, pm::pm_span<kv> kvs) {
    auto v = kvs.bind(t);
    const std::uint64_t i = t.global_id();
    const kv old = v[i];
    gpmlog_insert(t, l, &old, sizeof old);
    v[i] = kv{old.key, old.value + 1};
    gpm_persist(t);
  }, *log, gpm_view(table, n));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(table[i].value, i * 10 + 1);
  // Recovery as if the batch had not committed: undo from the log (Figure 6b).
  gpmlog_close(log);
  log = gpmlog_open(log_path.c_str());
  ex.launch({dim3(2), dim3(256)}, [](auto& t, gpmlog l, pm::pm_span<kv> kvs) {
    kv old{};
    gpmlog_read(t, l, &old, sizeof old);
    kvs.bind(t)[old.key] = old;
    gpm_persist(t);
    gpmlog_remove(t, l, sizeof old);
  }, *log, gpm_view(table, n));
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(table[i].value, i * 10);
  gpmlog_close(log);
  gpm_unmap(table_path.c_str(), table, n * sizeof(kv));
  // Remapped, the table holds the recovered values.
  table = static_cast<kv*>(gpm_map(table_path.c_str(), n * sizeof(kv), false));
  EXPECT_EQ(table[77].value, 770u);
  gpm_unmap(table_path.c_str(), table, n * sizeof(kv));
}

TEST(GpmApi, ConventionalLogThroughTheSameNames) {
  scratch_dir dir;
  const std::string path = (dir / "c.log").string();
  gpmlog* log = gpmlog_create_conv(path.c_str(), 1 << 16, 3);
  cpu::executor ex({.workers = 1});
  std::vector<std::size_t> sizes(1, 0);
  ex.launch({dim3(1), dim3(4)}, [](auto& t, gpmlog l, std::size_t* out) {
    const std::uint32_t x = t.thread_rank();
    gpmlog_insert(t, l, &x, sizeof x, 2);
    t.syncthreads();
    if (t.thread_rank() == 0) out[0] = gpmlog_size(t, l, 2);
  }, *log, sizes.data());
  EXPECT_EQ(sizes[0], 4 * pm::conv_view::record_bytes(4));
  gpmlog_clear(log, 2);
  gpmlog_close(log);
}

TEST(GpmApi, BadArgumentsAreErrors) {
  scratch_dir dir;
  const std::string path = (dir / "m.pm").string();
  EXPECT_THROW(gpm_map(path.c_str(), 0, true), pm::pm_error);
  EXPECT_THROW(gpm_map(path.c_str(), 100, false), pm::pm_error);  // no such file
  void* p = gpm_map(path.c_str(), 100, true);
  EXPECT_THROW(gpm_map(path.c_str(), 100, false), pm::pm_error);  // already mapped
  EXPECT_THROW(gpm_unmap(path.c_str(), p, 99), pm::pm_error);
  gpm_unmap(path.c_str(), p, 100);
  EXPECT_THROW(gpm_map(path.c_str(), 200, false), pm::pm_error);  // size differs
  EXPECT_THROW(gpmlog_create_hcl((dir / "l").string().c_str(), 1 << 16, 0, 32), pm::pm_error);
  EXPECT_THROW(gpmlog_open(path.c_str()), pm::pm_error);  // a mapped file is not a log
}

}  // namespace
