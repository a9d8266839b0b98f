// Cuckoo hashmap: batches against the sequential reference in both styles
// (with displacements), on parallel and deterministic schedules with equal
// crash-point counts; the check catches a corrupted slot; a crash needs
// recovery; the reference's rules; bad parameters.
#include <gtest/gtest.h>

#include <unordered_map>

#include "hashmap/cuckoo.hpp"
#include "hashmap/hashmap.hpp"
#include "workload_harness.hpp"
#include "print_style.hpp"

namespace {
using namespace gpmx;
using apps::style;
using apps::hashmap::entry;

class HashmapTest : public testing::TestWithParam<style> {
 protected:
  test::workload_harness h{"hashmap"};
};

TEST_P(HashmapTest, BatchesMatchTheReference) {
  // 8 batches of 64 keys from 128 values fill the table half: many displacements.
  const auto p = h.with({{"slots", 256}, {"batch", 64}, {"batches", 8}});
  const apps::run_report r = h.run(p, GetParam());
  EXPECT_EQ(r.operations, 8u * 64);
  const apps::verify_report v = h.verify();
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_FALSE(h.recover().repaired);
}

TEST_P(HashmapTest, DeterministicSchedulesGiveTheReferenceAndTheSameCrashPoints) {
  const auto p = h.with({});
  (void)h.run(p, GetParam(), cpu::schedule::deterministic, 3);
  EXPECT_TRUE(h.verify().ok);
  const std::uint64_t a = h.crash_points(p, GetParam(), cpu::schedule::deterministic, 1);
  const std::uint64_t b = h.crash_points(p, GetParam(), cpu::schedule::deterministic, 2);
  const std::uint64_t c = h.crash_points(p, GetParam(), cpu::schedule::parallel, 0);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, c);
}

TEST_P(HashmapTest, VerificationCatchesACorruptedSlot) {
  (void)h.run(h.with({}), GetParam());
  ASSERT_TRUE(h.verify().ok);
  std::uint64_t slot = 0;
  while (h.read_word("hashmap.pool", "table", slot * 2) == 0) ++slot;
  h.flip_word("hashmap.pool", "table", slot * 2 + 1, 4);  // its value
  const apps::verify_report v = h.verify();
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("slot " + std::to_string(slot)), std::string::npos) << v.detail;
}

TEST_P(HashmapTest, ACrashMidBatchNeedsRecoveryThenVerifies) {
  const auto p = h.with({});
  const std::uint64_t points = h.crash_points(p, GetParam(), cpu::schedule::parallel, 0);
  h.run_killed_at(p, GetParam(), points / 2);
  const apps::verify_report before = h.verify();
  EXPECT_FALSE(before.ok);
  EXPECT_NE(before.detail.find("recover first"), std::string::npos) << before.detail;
  EXPECT_TRUE(h.recover().repaired);
  EXPECT_TRUE(h.verify().ok);
}

INSTANTIATE_TEST_SUITE_P(Styles, HashmapTest, testing::Values(style::epoch, style::sbrp),
                         [](const auto& i) { return std::string(apps::to_string(i.param)); });

TEST(Hashmap, ReferenceHoldsEveryKeyOnceWithItsLastValueAtOneOfItsSlots) {
  const std::uint64_t slots = 64;
  std::vector<entry> table(slots, entry{0, 0});
  std::unordered_map<std::uint64_t, std::uint64_t> last;
  bool displaced = false;
  for (std::uint64_t b = 0; b < 10; ++b) {
    const auto batch = apps::hashmap::make_batch(9, b, 16, slots / 2);
    ASSERT_TRUE(apps::hashmap::apply_reference(table, batch));
    for (const entry& e : batch) last[e.key] = e.value;
  }
  std::size_t occupied = 0;
  for (std::uint64_t s = 0; s < slots; ++s) {
    if (table[s].key == 0) continue;
    ++occupied;
    EXPECT_EQ(table[s].value, last.at(table[s].key));
    bool at_own_slot = false;
    for (std::uint64_t f = 0; f < apps::hashmap::hash_functions; ++f)
      at_own_slot |= apps::hashmap::slot_of(table[s].key, f, slots) == s;
    EXPECT_TRUE(at_own_slot);
    displaced |= apps::hashmap::slot_of(table[s].key, 0, slots) != s;
  }
  EXPECT_EQ(occupied, last.size());
  EXPECT_TRUE(displaced) << "no key left its first slot: the test does not exercise cuckoo moves";
}

TEST(Hashmap, RejectsBadParameters) {
  test::workload_harness h{"hashmap"};
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"slots", 1}}), style::epoch); }, "slots");
  test::expect_config_error_naming([&] { (void)h.run(h.with({{"batch", 1000}}), style::epoch); }, "batch");
}

// Seeded bug (docs/workloads.md): only a crash can show it.
TEST(HashmapSeededBug, LogAfterUpdateRunVerifies) {
  test::expect_seeded_bug_run_verifies("hashmap", "log-after-update");
}

}  // namespace
