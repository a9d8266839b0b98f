// A save's writes, cut short anywhere: the file is rebuilt from the bytes
// before a save with any prefix (and random subsets) of the bytes that save
// changed, with and without its flip word, and the checkpoint must restore
// the old data unless the whole working copy and its seal are in, and then
// the new, with or without the flip (a save on a device does not sync the
// flip). A flip without the whole copy is refused, never restored.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

#include "gpmx/support/scratch_dir.hpp"
#include "pm/checkpoint_layout.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/pm/checkpoint.hpp"

namespace {
using namespace gpmx;
using pm::checkpoint;
using pm::durability;
using bytes = std::vector<char>;

const std::vector<std::size_t> sizes = {300, 5000, 128, 77};

std::uint8_t pattern(std::uint64_t seed, std::size_t element, std::size_t i) {
  return std::uint8_t(i * 31 + element * 17 + seed * 101 + (i >> 8) * 7);
}

bytes read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const std::filesystem::path& p, const bytes& b) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(b.data(), std::streamsize(b.size()));
}

void save_pattern(checkpoint& cp, std::uint64_t seed, cpu::executor& ex) {
  std::vector<std::vector<std::uint8_t>> bufs;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    bufs.emplace_back(sizes[k]);
    for (std::size_t i = 0; i < sizes[k]; ++i) bufs.back()[i] = pattern(seed, k, i);
    cp.register_buffer(0, bufs.back().data(), sizes[k]);
  }
  cp.save(0, ex);
}

// Reopens the file, restores, and returns the seed whose pattern every byte
// holds, or -1 for a mixture.
long restored_seed(const std::filesystem::path& p, cpu::executor& ex, std::initializer_list<long> candidates) {
  auto cp = checkpoint::open(p, durability::none);
  std::vector<std::vector<std::uint8_t>> bufs;
  for (std::size_t s : sizes) {
    bufs.emplace_back(s);
    cp.register_buffer(0, bufs.back().data(), s);
  }
  cp.restore(0, ex);
  for (long seed : candidates) {
    bool all = true;
    for (std::size_t k = 0; all && k < sizes.size(); ++k)
      for (std::size_t i = 0; all && i < sizes[k]; ++i) all = bufs[k][i] == pattern(std::uint64_t(seed), k, i);
    if (all) return seed;
  }
  return -1;
}

TEST(CheckpointTorn, AnyPrefixOfASaveRestoresOldOrNewData) {
  scratch_dir dir;
  const auto path = dir / "torn.cp";
  cpu::executor ex({.workers = 2});
  std::uintptr_t flip_offset = 0;  // of the epoch word, in the file
  {
    auto cp = checkpoint::create(path, 8192, 4, 1, durability::none);
    save_pattern(cp, 1, ex);  // epoch 1
  }
  const bytes before = read_file(path);
  {
    auto cp = checkpoint::open(path, durability::none);
    save_pattern(cp, 2, ex);  // epoch 2: the save cut short below
    pm::pool raw = pm::pool::open(path, durability::none);
    pm::region meta = raw.find(pm::cp_layout::meta_region);
    flip_offset = meta.data() - raw.base() + pm::cp_layout::header_bytes;
  }
  const bytes after = read_file(path);
  ASSERT_EQ(before.size(), after.size());
  ASSERT_EQ(flip_offset % 8, 0u) << "the flip word must be one aligned 8-byte word";

  // What the save changed: data bytes and the working copy's seal, and in
  // the metadata only the flip word.
  std::vector<std::size_t> data_changes;
  bool flip_changed = false;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i] == after[i]) continue;
    if (i >= flip_offset && i < flip_offset + 8) flip_changed = true;
    else data_changes.push_back(i);
  }
  ASSERT_TRUE(flip_changed);
  ASSERT_FALSE(data_changes.empty());
  const std::size_t data_lo = data_changes.front(), data_hi = data_changes.back();
  EXPECT_TRUE(flip_offset + 8 <= data_lo || flip_offset >= data_hi) << "the save changed metadata besides the flip";

  auto apply = [&](std::size_t count, const std::vector<std::size_t>& order, bool flip) {
    bytes b = before;
    for (std::size_t j = 0; j < count; ++j) b[order[j]] = after[order[j]];
    if (flip) std::copy_n(after.begin() + long(flip_offset), 8, b.begin() + long(flip_offset));
    write_file(path, b);
  };

  // Prefixes in address order and in shuffled orders (the copy is parallel,
  // so its writes land in any order), without the flip: old data until the
  // last byte is in (every byte changed, so any missing one breaks the seal).
  std::mt19937_64 rng(5);
  std::vector<std::vector<std::size_t>> orders = {data_changes};
  for (int i = 0; i < 3; ++i) {
    orders.push_back(data_changes);
    std::shuffle(orders.back().begin(), orders.back().end(), rng);
  }
  const std::size_t n = data_changes.size();
  for (const auto& order : orders)
    for (std::size_t count : {std::size_t(0), std::size_t(1), n / 7, n / 2, n - 1, n, std::size_t(rng() % n)}) {
      apply(count, order, false);
      EXPECT_EQ(restored_seed(path, ex, {1, 2}), count == n ? 2 : 1) << count << " of " << n << " bytes, no flip";
    }
  // The whole copy without the flip: open moves the epoch word up to it.
  apply(n, data_changes, false);
  EXPECT_EQ(checkpoint::open(path, durability::none).epoch(0), 2u);
  // The whole copy and then the flip: new data.
  apply(n, data_changes, true);
  EXPECT_EQ(restored_seed(path, ex, {1, 2}), 2);
  EXPECT_EQ(checkpoint::open(path, durability::none).epoch(0), 2u);
  // The flip with part of the copy (flip-before-copy): refused.
  for (std::size_t count : {std::size_t(0), n / 2, n - 1}) {
    apply(count, orders[1], true);
    try {
      (void)restored_seed(path, ex, {1, 2});
      ADD_FAILURE() << "restored a save whose copy has " << count << " of " << n << " bytes";
    } catch (const pm::pm_error& e) {
      EXPECT_EQ(e.code(), pm::errc::checksum_mismatch) << e.what();
      EXPECT_NE(std::string(e.what()).find("no copy holds a sealed save 2"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
