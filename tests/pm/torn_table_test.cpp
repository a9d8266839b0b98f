// A namespace update survives any subset of its 8-byte words reaching the
// file: the pool opens and shows exactly the old namespace or the new one.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "gpmx/pm/pool.hpp"
#include "file_bytes.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx::pm;
using gpmx::scratch_dir;
namespace fs = std::filesystem;

using gpmx::test::bytes_of;
using gpmx::test::write_bytes;
std::vector<std::string> names(const pool& p) {
  std::vector<std::string> n;
  for (const auto& r : p.list()) n.push_back(r.name + "@" + std::to_string(r.offset) + "+" + std::to_string(r.size));
  return n;
}

// Each step changes the namespace once; before and after images differ in
// the words the update wrote.
struct step {
  const char* what;
  void (*prepare)(pool&);  // whole, before the image is taken
  void (*apply)(pool&);    // one namespace commit: the one that tears
};
const step steps[] = {
    {"create", [](pool&) {}, [](pool& p) { p.create_region("fresh", 8192, 3); }},
    {"remove", [](pool&) {}, [](pool& p) { p.remove_region("b"); }},
    {"create into a freed extent", [](pool& p) { p.remove_region("a"); },
     [](pool& p) { p.create_region("reuse", 4096); }},
};

TEST(TornTable, AnySubsetOfWordsGivesOldOrNew) {
  std::mt19937_64 rng(12345);
  for (const step& s : steps) {
    scratch_dir dir;
    const auto path = dir / "p.pool";
    {
      pool p = pool::create(path, 1 << 20, {.mode = durability::none, .table_capacity = 16});
      p.create_region("a", 4096);
      p.create_region("b", 12000);
      s.prepare(p);
    }
    const auto before = bytes_of(path);
    std::vector<std::string> old_names, new_names;
    {
      pool p = pool::open(path, durability::none);
      old_names = names(p);
      s.apply(p);
      new_names = names(p);
    }
    auto after = bytes_of(path);
    ASSERT_EQ(before.size(), after.size());
    std::vector<std::size_t> changed;
    for (std::size_t w = 0; w + 8 <= before.size(); w += 8)
      if (std::memcmp(&before[w], &after[w], 8) != 0) changed.push_back(w);
    ASSERT_FALSE(changed.empty()) << s.what;
    int saw_old = 0, saw_new = 0;
    for (int trial = 0; trial < 300; ++trial) {
      auto mixed = before;
      // Trials 0 and 1 are the extremes: nothing or everything arrives.
      for (std::size_t w : changed)
        if (trial == 1 || (trial > 1 && (rng() & 1))) std::memcpy(&mixed[w], &after[w], 8);
      write_bytes(path, mixed);
      pool p = pool::open(path, durability::none);
      const auto got = names(p);
      if (got == new_names) ++saw_new;
      else if (got == old_names) ++saw_old;
      else FAIL() << s.what << ": a torn update produced a namespace that is neither the old nor the new one";
    }
    EXPECT_GT(saw_old, 0) << s.what;
    EXPECT_GT(saw_new, 0) << s.what;
  }
}

}  // namespace
