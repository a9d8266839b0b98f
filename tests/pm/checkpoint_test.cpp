// Checkpoints: save/restore round trips, independent groups, epochs, reopen
// with re-registration, 128-byte alignment, and every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/checkpoint.hpp"
#include "gpmx/pm/gpm_checkpoint.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using pm::checkpoint;
using pm::durability;
using pm::errc;
using buffer = std::vector<std::uint8_t>;

// Distinct bytes for each (seed, element, index).
buffer pattern(std::uint64_t seed, std::size_t element, std::size_t size) {
  buffer b(size);
  for (std::size_t i = 0; i < size; ++i) b[i] = std::uint8_t(i * 31 + element * 17 + seed * 101 + (i >> 8) * 7);
  return b;
}

std::vector<buffer> buffers(std::initializer_list<std::size_t> sizes) {
  std::vector<buffer> out;
  for (std::size_t s : sizes) out.emplace_back(s, 0);
  return out;
}

// In place: the registered addresses must stay valid.
void fill(std::vector<buffer>& bufs, std::uint64_t seed) {
  for (std::size_t e = 0; e < bufs.size(); ++e) {
    const buffer p = pattern(seed, e, bufs[e].size());
    std::copy(p.begin(), p.end(), bufs[e].begin());
  }
}

void clear(std::vector<buffer>& bufs) {
  for (auto& b : bufs) std::fill(b.begin(), b.end(), std::uint8_t(0));
}

void expect_pattern(const std::vector<buffer>& bufs, std::uint64_t seed) {
  for (std::size_t e = 0; e < bufs.size(); ++e) EXPECT_EQ(bufs[e], pattern(seed, e, bufs[e].size())) << "element " << e;
}

void register_all(checkpoint& cp, std::uint32_t group, std::vector<buffer>& bufs) {
  for (auto& b : bufs) cp.register_buffer(group, b.data(), b.size());
}

// Runs f and requires a pm_error with `code` whose message holds every part.
void expect_error(const std::function<void()>& f, errc code, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << pm::to_string(code);
  } catch (const pm::pm_error& e) {
    EXPECT_EQ(e.code(), code) << pm::to_string(e.code()) << ": " << e.what();
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what() << " lacks " << p;
  }
}

class Checkpoint : public ::testing::Test {
 protected:
  scratch_dir dir;
  cpu::executor ex{{.workers = 2}};
  std::filesystem::path path = dir / "cp.pool";
};

TEST_F(Checkpoint, RoundTripForSeveralGroupsAndElementSizes) {
  auto cp = checkpoint::create(path, 64 << 10, 4, 3, durability::msync);
  std::vector<std::vector<buffer>> g = {buffers({1, 128, 1000, 4099}), buffers({12345}), buffers({200, 300, 40000})};
  for (std::uint32_t i = 0; i < 3; ++i) {
    register_all(cp, i, g[i]);
    fill(g[i], 10 + i);
    cp.save(i, ex);
  }
  for (auto& b : g) clear(b);
  for (std::uint32_t i = 0; i < 3; ++i) {
    cp.restore(i, ex);
    expect_pattern(g[i], 10 + i);
  }
}

TEST_F(Checkpoint, GroupsAreIndependent) {
  auto cp = checkpoint::create(path, 8192, 2, 2, durability::none);
  auto a = buffers({3000, 77}), b = buffers({5000});
  register_all(cp, 0, a);
  register_all(cp, 1, b);
  fill(a, 1);
  fill(b, 2);
  cp.save(0, ex);
  cp.save(1, ex);
  fill(a, 3);
  cp.save(0, ex);  // group 1 keeps its one save
  fill(b, 4);      // changed but not saved
  EXPECT_EQ(cp.epoch(0), 2u);
  EXPECT_EQ(cp.epoch(1), 1u);
  clear(a);
  cp.restore(1, ex);
  expect_pattern(b, 2);
  for (auto x : a[0]) ASSERT_EQ(x, 0) << "restoring group 1 wrote group 0's buffers";
  cp.restore(0, ex);
  expect_pattern(a, 3);
}

TEST_F(Checkpoint, EpochsAdvanceAndCopiesAlternate) {
  auto cp = checkpoint::create(path, 4096, 1, 1, durability::none);
  auto a = buffers({1500});
  register_all(cp, 0, a);
  EXPECT_EQ(cp.epoch(0), 0u);
  for (std::uint64_t k = 1; k <= 5; ++k) {
    fill(a, k);
    cp.save(0, ex);
    EXPECT_EQ(cp.epoch(0), k);
    // The consistent copy (epoch parity) holds this save, the other the previous one.
    const std::uint8_t* now = reinterpret_cast<const std::uint8_t*>(cp.element_copy(0, std::uint32_t(k % 2), 0));
    EXPECT_TRUE(std::equal(a[0].begin(), a[0].end(), now));
    if (k > 1) {
      const std::uint8_t* before = reinterpret_cast<const std::uint8_t*>(cp.element_copy(0, std::uint32_t(1 - k % 2), 0));
      const buffer prev = pattern(k - 1, 0, 1500);
      EXPECT_TRUE(std::equal(prev.begin(), prev.end(), before));
    }
  }
  clear(a);
  cp.restore(0, ex);
  expect_pattern(a, 5);
}

// The seeded bug's order (flip, then copy) ends in the same state as the
// protocol's; only a crash between its steps tells them apart.
TEST_F(Checkpoint, FlipThenCopyEndsWhereSaveEnds) {
  auto cp = checkpoint::create(path, 8192, 2, 1, durability::none);
  auto a = buffers({1500, 5000});
  register_all(cp, 0, a);
  for (std::uint64_t k = 1; k <= 3; ++k) {
    fill(a, k);
    cp.save(0, ex, checkpoint::save_order::flip_then_copy);
    EXPECT_EQ(cp.epoch(0), k);
  }
  clear(a);
  cp.restore(0, ex);
  expect_pattern(a, 3);
}

TEST_F(Checkpoint, ReopenReregisterRestoreGivesTheLastSave) {
  {
    auto cp = checkpoint::create(path, 1 << 16, 3, 2, durability::msync);
    auto a = buffers({10, 4096, 999});
    register_all(cp, 1, a);
    fill(a, 7);
    cp.save(1, ex);
    fill(a, 8);
    cp.save(1, ex);
    fill(a, 9);  // not saved
  }
  auto cp = checkpoint::open(path, durability::msync);
  EXPECT_EQ(cp.groups(), 2u);
  EXPECT_EQ(cp.elements_per_group(), 3u);
  EXPECT_EQ(cp.bytes_per_group_copy(), 1u << 16);
  EXPECT_EQ(cp.recorded_elements(1), 3u);
  EXPECT_EQ(cp.registered_elements(1), 0u);
  EXPECT_EQ(cp.epoch(1), 2u);
  auto fresh = buffers({10, 4096, 999});
  register_all(cp, 1, fresh);
  cp.restore(1, ex);
  expect_pattern(fresh, 8);
  fill(fresh, 11);
  cp.save(1, ex);  // saving goes on after a restart
  EXPECT_EQ(cp.epoch(1), 3u);
}

TEST_F(Checkpoint, ElementCopiesAre128ByteAligned) {
  auto cp = checkpoint::create(path, 10000, 5, 2, durability::none);
  auto a = buffers({1, 129, 255, 128, 3000});
  register_all(cp, 1, a);
  for (std::uint32_t copy = 0; copy < 2; ++copy)
    for (std::uint32_t e = 0; e < a.size(); ++e) {
      const auto at = reinterpret_cast<std::uintptr_t>(cp.element_copy(1, copy, e));
      EXPECT_EQ(at % 128, 0u) << "copy " << copy << " element " << e;
      if (e > 0) {
        EXPECT_GE(at, reinterpret_cast<std::uintptr_t>(cp.element_copy(1, copy, e - 1)) + a[e - 1].size());
      }
    }
  // Copy 1 starts after the whole of copy 0.
  EXPECT_GE(cp.element_copy(1, 1, 0), cp.element_copy(1, 0, 4) + 3000);
}

TEST_F(Checkpoint, CreateErrorsNameTheArgument) {
  expect_error([&] { checkpoint::create(path, 0, 1, 1); }, errc::bad_size, {"size", "0"});
  expect_error([&] { checkpoint::create(path, 100, 0, 1); }, errc::bad_argument, {"elements per group is 0"});
  expect_error([&] { checkpoint::create(path, 100, 1, 0); }, errc::bad_argument, {"groups is 0"});
  { checkpoint::create(path, 100, 1, 1, durability::none); }
  expect_error([&] { checkpoint::create(path, 100, 1, 1); }, errc::already_exists, {path.string()});
}

TEST_F(Checkpoint, RegisterErrors) {
  auto cp = checkpoint::create(path, 1000, 2, 2, durability::none);
  buffer a(600), b(400), c(401), d(1);
  expect_error([&] { cp.register_buffer(2, a.data(), a.size()); }, errc::bad_argument, {"group 2", "2 group(s)"});
  expect_error([&] { cp.register_buffer(0, nullptr, 8); }, errc::bad_argument, {"group 0", "null"});
  expect_error([&] { cp.register_buffer(0, a.data(), 0); }, errc::bad_size, {"group 0", "size is 0"});
  cp.register_buffer(0, a.data(), a.size());
  expect_error([&] { cp.register_buffer(0, c.data(), c.size()); }, errc::checkpoint_full,
               {"group 0 element 1", "401 bytes", "600 of the group's 1000"});
  cp.register_buffer(0, b.data(), b.size());
  expect_error([&] { cp.register_buffer(0, d.data(), d.size()); }, errc::checkpoint_full,
               {"group 0", "maximum of 2 element(s)"});
  cp.register_buffer(1, d.data(), d.size());
  cp.save(1, ex);
  expect_error([&] { cp.register_buffer(1, d.data(), d.size()); }, errc::registration_mismatch,
               {"group 1 was saved (epoch 1)", "new element 1"});
  EXPECT_EQ(cp.recorded_elements(0), 2u);  // failed registrations recorded nothing
}

TEST_F(Checkpoint, SaveAndRestoreErrors) {
  {
    auto cp = checkpoint::create(path, 1000, 2, 2, durability::none);
    buffer a(100), b(200);
    expect_error([&] { cp.save(0, ex); }, errc::registration_mismatch, {"group 0 has no registered buffers"});
    expect_error([&] { cp.save(5, ex); }, errc::bad_argument, {"save", "group 5"});
    expect_error([&] { cp.restore(5, ex); }, errc::bad_argument, {"restore", "group 5"});
    expect_error([&] { (void)cp.epoch(2); }, errc::bad_argument, {"group 2"});
    cp.register_buffer(0, a.data(), a.size());
    cp.register_buffer(0, b.data(), b.size());
    expect_error([&] { cp.restore(0, ex); }, errc::no_consistent_copy, {"group 0", "no consistent copy"});
    cp.save(0, ex);
  }
  auto cp = checkpoint::open(path, durability::none);
  buffer a(100), wrong(150);
  expect_error([&] { cp.register_buffer(0, wrong.data(), wrong.size()); }, errc::registration_mismatch,
               {"group 0 element 0", "recorded with 100 bytes", "registered now with 150"});
  cp.register_buffer(0, a.data(), a.size());
  expect_error([&] { cp.restore(0, ex); }, errc::registration_mismatch, {"group 0", "2 recorded", "1 registered"});
  expect_error([&] { cp.save(0, ex); }, errc::registration_mismatch, {"group 0", "2 recorded", "1 registered"});
  expect_error([&] { (void)cp.element_copy(0, 2, 0); }, errc::bad_argument, {"copy 2"});
}

TEST_F(Checkpoint, OpenRejectsAPoolThatIsNotACheckpoint) {
  { pm::pool::create(path, 1 << 20, {.mode = durability::none}); }
  expect_error([&] { checkpoint::open(path); }, errc::not_a_pool, {path.string(), "not a checkpoint"});
  expect_error([&] { checkpoint::open(dir / "missing.pool"); }, errc::io, {"missing.pool"});
}

TEST_F(Checkpoint, NewErrorCodesHaveNames) {
  EXPECT_STREQ(pm::to_string(errc::checkpoint_full), "checkpoint_full");
  EXPECT_STREQ(pm::to_string(errc::no_consistent_copy), "no_consistent_copy");
  EXPECT_STREQ(pm::to_string(errc::registration_mismatch), "registration_mismatch");
}

TEST_F(Checkpoint, LibGpmNamesRoundTripAndReportErrors) {
  const std::string p = path.string();
  auto a = buffers({700, 3000});
  {
    gpmcp* cp = gpmcp_create(p.c_str(), 4096, 2, 1);
    ASSERT_NE(cp, nullptr) << gpmcp_last_error();
    for (auto& b : a) ASSERT_EQ(gpmcp_register(cp, b.data(), b.size(), 0), 0) << gpmcp_last_error();
    fill(a, 21);
    ASSERT_EQ(gpmcp_checkpoint(cp, 0), 0) << gpmcp_last_error();
    buffer extra(10);
    EXPECT_EQ(gpmcp_register(cp, extra.data(), extra.size(), 0), -1);
    EXPECT_EQ(gpmcp_last_errc(), errc::registration_mismatch);
    EXPECT_EQ(gpmcp_checkpoint(cp, 1), -1);
    EXPECT_EQ(gpmcp_last_errc(), errc::bad_argument);
    EXPECT_NE(std::string(gpmcp_last_error()).find("group 1"), std::string::npos) << gpmcp_last_error();
    gpmcp_close(cp);
  }
  clear(a);
  gpmcp* cp = gpmcp_open(p.c_str());
  ASSERT_NE(cp, nullptr) << gpmcp_last_error();
  EXPECT_EQ(gpmcp_restore(cp, 0), -1);  // nothing registered yet
  EXPECT_EQ(gpmcp_last_errc(), errc::registration_mismatch);
  for (auto& b : a) ASSERT_EQ(gpmcp_register(cp, b.data(), b.size(), 0), 0) << gpmcp_last_error();
  ASSERT_EQ(gpmcp_restore(cp, 0), 0) << gpmcp_last_error();
  expect_pattern(a, 21);
  gpmcp_close(cp);

  EXPECT_EQ(gpmcp_open((dir / "none.pool").string().c_str()), nullptr);
  EXPECT_NE(std::string(gpmcp_last_error()).find("none.pool"), std::string::npos);
  EXPECT_EQ(gpmcp_create(p.c_str(), 4096, 2, 1), nullptr);
  EXPECT_EQ(gpmcp_last_errc(), errc::already_exists);
  EXPECT_EQ(gpmcp_register(nullptr, a[0].data(), 1, 0), -1);
  EXPECT_EQ(gpmcp_last_errc(), errc::bad_argument);
}

}  // namespace
