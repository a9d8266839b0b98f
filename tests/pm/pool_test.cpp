#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>


namespace {
using namespace gpmx::pm;
using gpmx::scratch_dir;

constexpr std::uint64_t MiB = 1 << 20;

TEST(Pool, RegionsAreFoundByNameAfterReopen) {
  scratch_dir dir;
  const auto path = dir / "p.pool";
  std::array<std::uint8_t, 16> id{};
  {
    pool p = pool::create(path, 8 * MiB, {.mode = durability::msync});
    id = p.uuid();
    region a = p.create_region("alpha", 10000, 7);
    region b = p.create_region("beta", 3 * 4096);
    std::memset(a.data(), 0xab, a.size());
    a.persist();
    b.as<std::uint64_t>()[5] = 42;
    b.persist(40, 8);
    EXPECT_EQ(p.list().size(), 2u);
  }
  pool p = pool::open(path, durability::msync);
  EXPECT_EQ(p.uuid(), id);
  EXPECT_EQ(p.size(), 8 * MiB);
  EXPECT_GT(p.created_ns(), 0u);
  region a = p.find("alpha");
  EXPECT_EQ(a.size(), 10000u);
  EXPECT_EQ(a.flags(), 7u);
  for (std::uint64_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.data()[i], std::byte{0xab});
  EXPECT_EQ(p.find("beta").as<std::uint64_t>()[5], 42u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % region_alignment, 0u);
}

TEST(Pool, RemoveFreesTheExtentAndNewRegionsStartZeroed) {
  scratch_dir dir;
  pool p = pool::create(dir / "p.pool", 2 * MiB, {.mode = durability::none});
  region a = p.create_region("a", 64 * 1024);
  std::memset(a.data(), 0xff, a.size());
  const std::byte* where = a.data();
  p.remove_region("a");
  EXPECT_FALSE(p.contains("a"));
  region b = p.create_region("b", 64 * 1024);
  EXPECT_EQ(b.data(), where);  // first fit reuses the freed extent
  for (std::uint64_t i = 0; i < b.size(); ++i) ASSERT_EQ(b.data()[i], std::byte{0});
}

TEST(Pool, CreateRefusesAnExistingPathAndLeavesNoTemporaryFile) {
  scratch_dir dir;
  { pool::create(dir / "p.pool", MiB, {.mode = durability::none}); }
  try {
    pool::create(dir / "p.pool", MiB);
    FAIL();
  } catch (const pm_error& e) {
    EXPECT_EQ(e.code(), errc::already_exists);
  }
  int files = 0;
  for ([[maybe_unused]] auto& f : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1);
}

TEST(Pool, DurabilityNames) {
  EXPECT_EQ(durability_from_string("pmem"), durability::pmem);
  EXPECT_EQ(durability_from_string("msync"), durability::msync);
  EXPECT_EQ(durability_from_string("none"), durability::none);
  EXPECT_THROW(durability_from_string("fast"), pm_error);
  EXPECT_STREQ(to_string(durability::msync), "msync");
}

}  // namespace
