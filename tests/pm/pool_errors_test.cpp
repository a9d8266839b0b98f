// Every distinct fault is its own error code with a message naming the file,
// region or argument; a failed open leaves the file untouched.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "gpmx/pm/pool.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "pm/format.hpp"
#include "file_bytes.hpp"

namespace {
using namespace gpmx::pm;
using gpmx::scratch_dir;
namespace fs = std::filesystem;

constexpr std::uint64_t MiB = 1 << 20;

template <class F>
pm_error error_of(F&& f) {
  try {
    f();
  } catch (const pm_error& e) {
    return e;
  }
  return pm_error(errc::io, "no error was raised");
}

using gpmx::test::bytes_of;
using gpmx::test::write_bytes;

// Opening must fail with `code` and must not change the file.
void expect_open_fails(const fs::path& p, errc code, const std::string& fragment) {
  const auto before = bytes_of(p);
  const auto mtime = fs::last_write_time(p);
  const pm_error e = error_of([&] { pool::open(p); });
  EXPECT_EQ(e.code(), code) << e.what();
  EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
  EXPECT_EQ(bytes_of(p), before);
  EXPECT_EQ(fs::last_write_time(p), mtime);
}

class PoolErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    pool p = pool::create(path, MiB, {.mode = durability::none, .table_capacity = 4});
    p.create_region("kept", 4096);
  }
  scratch_dir dir;
  fs::path path = dir / "p.pool";
};

TEST_F(PoolErrors, NotAPool) {
  auto b = bytes_of(path);
  b[0] = 'X';
  write_bytes(path, b);
  expect_open_fails(path, errc::not_a_pool, "not a gpmx pool");
}

TEST_F(PoolErrors, WrongVersion) {
  auto b = bytes_of(path);
  const std::uint64_t v = 99;
  std::memcpy(b.data() + offsetof(format::header, version), &v, 8);
  write_bytes(path, b);
  expect_open_fails(path, errc::wrong_version, "version 99");
}

TEST_F(PoolErrors, Truncated) {
  auto b = bytes_of(path);
  b.resize(b.size() / 2);
  write_bytes(path, b);
  expect_open_fails(path, errc::truncated, "describes a");
  b.resize(50);
  write_bytes(path, b);
  expect_open_fails(path, errc::truncated, "smaller than a pool header");
}

TEST_F(PoolErrors, HeaderChecksum) {
  auto b = bytes_of(path);
  b[offsetof(format::header, uuid)] ^= 1;
  write_bytes(path, b);
  expect_open_fails(path, errc::checksum_mismatch, "header checksum");
}

TEST_F(PoolErrors, BothTablesCorrupt) {
  auto b = bytes_of(path);
  format::header h;
  std::memcpy(&h, b.data(), sizeof h);
  b[h.table_offset] ^= 1;  // each copy's sequence number
  b[h.table_offset + h.table_bytes] ^= 1;
  write_bytes(path, b);
  expect_open_fails(path, errc::checksum_mismatch, "namespace table");
}

TEST_F(PoolErrors, MissingFile) {
  const pm_error e = error_of([&] { pool::open(dir / "absent.pool"); });
  EXPECT_EQ(e.code(), errc::io);
  EXPECT_NE(std::string(e.what()).find("absent.pool"), std::string::npos);
}

TEST_F(PoolErrors, RegionArguments) {
  pool p = pool::open(path, durability::none);
  EXPECT_EQ(error_of([&] { p.create_region(std::string(48, 'n'), 10); }).code(), errc::name_too_long);
  EXPECT_EQ(error_of([&] { p.create_region("", 10); }).code(), errc::name_empty);
  EXPECT_EQ(error_of([&] { p.create_region("kept", 10); }).code(), errc::duplicate_name);
  EXPECT_EQ(error_of([&] { p.find("gone"); }).code(), errc::missing_region);
  EXPECT_EQ(error_of([&] { p.remove_region("gone"); }).code(), errc::missing_region);
  EXPECT_EQ(error_of([&] { p.create_region("zero", 0); }).code(), errc::bad_size);
  const pm_error big = error_of([&] { p.create_region("huge", 2 * MiB); });
  EXPECT_EQ(big.code(), errc::bad_size);
  EXPECT_NE(std::string(big.what()).find("'huge'"), std::string::npos);
  EXPECT_EQ(error_of([&] { p.find("kept").persist(4000, 200); }).code(), errc::bad_argument);
  EXPECT_EQ(p.list().size(), 1u);  // nothing above changed the namespace
}

TEST_F(PoolErrors, TableFullAndOutOfSpace) {
  pool p = pool::open(path, durability::none);
  p.create_region("a", 4096);
  p.create_region("b", 4096);
  p.create_region("c", 4096);
  EXPECT_EQ(error_of([&] { p.create_region("d", 4096); }).code(), errc::table_full);
  p.remove_region("c");
  // Fits the data space (so not bad_size) but not what three regions leave free.
  const std::uint64_t data_space = p.size() - format::header_bytes - 2 * format::table_bytes_for(4);
  EXPECT_EQ(error_of([&] { p.create_region("d", data_space - 4096); }).code(), errc::out_of_space);
}

TEST_F(PoolErrors, BadCreateArguments) {
  EXPECT_EQ(error_of([&] { pool::create(dir / "tiny.pool", 4096); }).code(), errc::bad_size);
  EXPECT_EQ(error_of([&] { pool::create(dir / "t.pool", MiB, {.table_capacity = 0}); }).code(), errc::bad_argument);
  EXPECT_FALSE(fs::exists(dir / "tiny.pool"));
}

}  // namespace

namespace {

// pm_error is a gpmx::error: its finer pm code maps to the kind of fault.
TEST(PmErrorRoot, EachCodeIsAKindOfFault) {
  EXPECT_EQ(error_code_of(errc::io), gpmx::error_code::io);
  EXPECT_EQ(error_code_of(errc::checksum_mismatch), gpmx::error_code::corrupt_data);
  EXPECT_EQ(error_code_of(errc::out_of_space), gpmx::error_code::capacity);
  EXPECT_EQ(error_code_of(errc::missing_region), gpmx::error_code::not_found);
  EXPECT_EQ(error_code_of(errc::bad_argument), gpmx::error_code::usage);
  const pm_error e(errc::not_a_pool, "not a pool");
  const gpmx::error& root = e;
  EXPECT_EQ(root.code(), gpmx::error_code::corrupt_data);
  EXPECT_EQ(e.code(), errc::not_a_pool);
}

}  // namespace
