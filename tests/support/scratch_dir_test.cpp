#include <gtest/gtest.h>

#include <fstream>

#include "gpmx/support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;

TEST(ScratchDir, IsFreshAndRemovedWithItsFiles) {
  fs::path where;
  {
    const gpmx::scratch_dir d;
    where = d.path();
    ASSERT_TRUE(fs::is_directory(where));
    EXPECT_TRUE(fs::is_empty(where));
    std::ofstream(d / "file") << "x";
    fs::create_directories(d / "sub" / "deeper");
  }
  EXPECT_FALSE(fs::exists(where));
}

TEST(ScratchDir, NamesItsStemUnderTheParent) {
  const gpmx::scratch_dir parent;
  const gpmx::scratch_dir a(parent.path(), "bench-x"), b(parent.path(), "bench-x");
  EXPECT_EQ(a.path().parent_path(), parent.path());
  EXPECT_EQ(a.path().filename().string().rfind("gpmx-bench-x-", 0), 0u) << a.path();
  EXPECT_NE(a.path(), b.path());
}

}  // namespace
