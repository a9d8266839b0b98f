// The truncator's rules, step by step on a log written by hand: it reads
// only what writers published as durable, applies only the unbroken run
// after applied_upto, and gives a ring's entries back (durable start, then
// the room word writers wait on) only past records the home image holds.
#include <gtest/gtest.h>

#include <vector>

#include "gpmx/exec/kernel_memory.hpp"
#include "gpmx/pm/pool.hpp"
#include "gpmx/stm/log_truncator.hpp"
#include "gpmx/stm/tx_heap.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace {
using namespace gpmx;
using namespace gpmx::stm;

constexpr std::uint32_t words = 8;

struct rig {
  scratch_dir dir;
  pm::pool pool = pm::pool::create(dir.path() / "t.pool", 1 << 20, {.mode = pm::durability::none});
  log_geometry g{0, 0, 2, 12, true};  // two committer rings of 12 entries
  kernel_vector<std::uint64_t> reclaimed = kernel_vector<std::uint64_t>(2, 0), durable_end = kernel_vector<std::uint64_t>(2, 0);
  std::vector<std::uint64_t> pos = std::vector<std::uint64_t>(2, 0);

  rig() { tx_heap::create(pool, words, g); }
  tx_heap heap() { return tx_heap::open(pool, words, g); }
  tx_log log_of(const tx_heap& h) {
    tx_log l = h.log();
    l.reclaimed = reclaimed.data();
    l.durable_end = durable_end.data();
    return l;
  }
  // A writer's record of one word, published as durable at once or not.
  void add(tx_heap& h, std::uint32_t stream, std::uint32_t seq, std::uint32_t word, std::uint32_t value,
           bool publish = true) {
    const tx_log l = h.log();
    log_entry* s = l.entries.raw() + g.stream_start(stream);
    const auto at = [&](std::uint64_t i) -> log_entry& { return s[(pos[stream] + i) % g.stream_entries(stream)]; };
    const log_entry head = make_header(seq, 1);
    at(0) = head;
    at(1) = make_data(word, value);
    at(2) = make_mark(seq, mark_check(l.epoch, head));
    pos[stream] += 3;
    if (publish) durable_end[stream] = pos[stream];
  }
};

TEST(LogTruncator, AppliesTheUnbrokenRunAndReclaimsOnlyPastAppliedRecords) {
  rig r;
  tx_heap h = r.heap();
  const tx_log log = r.log_of(h);
  log_truncator t(h, log);
  r.add(h, 0, 1, 0, 10);
  r.add(h, 0, 3, 1, 30);  // 2 is not written yet
  r.add(h, 1, 4, 2, 40);
  EXPECT_EQ(t.step(), agent::step_result::progressed);
  EXPECT_EQ(h.applied_upto(), 1u);
  EXPECT_EQ(h.home()[0], 10u);
  EXPECT_EQ(h.home()[1], 0u) << "record 3 waits for record 2";
  EXPECT_EQ(h.stream_starts()[0], 3u) << "past record 1 only";
  EXPECT_EQ(h.stream_starts()[1], 0u) << "record 4 is not applied";
  EXPECT_EQ(r.reclaimed[0], 0u) << "the slots are given back at the next step, after the starts' persists";

  // Record 2 arrives but is not published as durable: not read. The step
  // gives record 1's slots back.
  r.add(h, 1, 2, 3, 20, /*publish=*/false);
  EXPECT_EQ(t.step(), agent::step_result::progressed);
  EXPECT_EQ(r.reclaimed[0], 3u);
  EXPECT_EQ(r.reclaimed[1], 0u);
  EXPECT_NE(t.step(), agent::step_result::progressed);
  EXPECT_EQ(h.applied_upto(), 1u);

  r.durable_end[1] = r.pos[1];
  EXPECT_EQ(t.step(), agent::step_result::progressed);
  EXPECT_EQ(h.applied_upto(), 4u);
  EXPECT_EQ(h.home()[1], 30u);
  EXPECT_EQ(h.home()[2], 40u);
  EXPECT_EQ(h.home()[3], 20u);
  EXPECT_EQ(h.stream_starts()[0], 6u);
  EXPECT_EQ(h.stream_starts()[1], 6u);
  EXPECT_EQ(r.reclaimed[1], 0u);
  EXPECT_EQ(t.step(), agent::step_result::progressed);  // gives the slots back
  EXPECT_EQ(r.reclaimed[0], 6u);
  EXPECT_EQ(r.reclaimed[1], 6u);
  EXPECT_EQ(t.applied(), 4u);
  EXPECT_EQ(t.step(), agent::step_result::idle);
}

// Records wrap around a ring's end; recovery then reads from the durable
// start and finds what the truncator had not applied.
TEST(LogTruncator, RecoveryAfterItReadsEachRingFromItsDurableStart) {
  rig r;
  {
    tx_heap h = r.heap();
    const tx_log log = r.log_of(h);
    log_truncator t(h, log);
    for (std::uint32_t seq = 1; seq <= 3; ++seq) r.add(h, 0, seq, seq, seq * 10);  // positions 0-8
    (void)t.step();
    EXPECT_EQ(h.stream_starts()[0], 9u);
    r.add(h, 0, 4, 4, 40);  // positions 9-11
    r.add(h, 0, 5, 5, 50);  // positions 12-14: slots 0-2, over record 1
    r.add(h, 0, 6, 6, 60, /*publish=*/false);  // written, never published: recovery still finds it
  }
  tx_heap h = r.heap();
  const checkpoint_report c = h.checkpoint();  // recovery
  EXPECT_EQ(c.applied, 3u);
  EXPECT_EQ(h.applied_upto(), 6u);
  EXPECT_EQ(h.home()[5], 50u);
  EXPECT_EQ(h.home()[6], 60u);
  EXPECT_EQ(h.stream_starts()[0], 0u) << "a new epoch starts its rings at 0";
}

TEST(LogTruncator, APublishedRangeWithoutAWholeRecordIsCorrupt) {
  rig r;
  tx_heap h = r.heap();
  const tx_log log = r.log_of(h);
  log_truncator t(h, log);
  r.add(h, 0, 1, 0, 10);
  h.log().entries.raw()[2] = 0x1234;  // the mark
  try {
    (void)t.step();
    ADD_FAILURE() << "no error";
  } catch (const pm::pm_error& e) {
    EXPECT_NE(std::string(e.what()).find("stream 0 at position 0"), std::string::npos) << e.what();
  }
}

}  // namespace
