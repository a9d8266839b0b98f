// Building pool bytes from an image.
#include <gtest/gtest.h>

#include "check/trace_builder.hpp"
#include "gpmx/check/crash_point.hpp"
#include "gpmx/check/materialize.hpp"

namespace {
using namespace check_test;
using namespace gpmx::check;

constexpr std::uint64_t base = 0x7f0000001000;
constexpr who t0{0, 0, 0}, t1{0, 0, 1};

std::vector<std::byte> original(std::size_t n) { return std::vector<std::byte>(n, std::byte{0x11}); }

TEST(Materialize, AppliesChosenStoresAndKeepsTheRestAsBefore) {
  trace_builder b;
  b.write(t0, base + 0, 8, 0xa1);
  b.write(t0, base + 8, 8, 0xa2);
  const auto o = order_of(b.trace(), persist_model::sbrp);
  store_set image = o.empty_set();
  image.insert(1);
  const auto bytes = materialize_image(b.trace(), o, image, {base, 32}, original(32));
  for (std::size_t k = 0; k < 32; ++k)
    EXPECT_EQ(bytes[k], std::byte(k >= 8 && k < 16 ? 0xa2 : 0x11)) << k;
}

TEST(Materialize, TheCoherenceLastChosenStoreOfAGranuleWins) {
  trace_builder b;
  b.write(t0, base, 8, 0x01);
  b.write(t1, base, 8, 0x02);
  b.write(t0, base, 4, 0x03);  // overwrites half of the granule
  const auto o = order_of(b.trace(), persist_model::sbrp);
  store_set all = crash_state_at(o, 3).issued;
  auto bytes = materialize_image(b.trace(), o, all, {base, 8}, original(8));
  EXPECT_EQ(bytes[0], std::byte{0x03});
  EXPECT_EQ(bytes[7], std::byte{0x02});
  store_set first_two = crash_state_at(o, 2).issued;
  bytes = materialize_image(b.trace(), o, first_two, {base, 8}, original(8));
  EXPECT_EQ(bytes[0], std::byte{0x02});
}

TEST(Materialize, AStoreTearsAtTheGranularity) {
  trace_builder b;
  b.write(t0, base, 16, 0x55);
  const auto o = order_of(b.trace(), persist_model::sbrp, 4);
  store_set half = o.empty_set();
  half.insert(1);
  const auto bytes = materialize_image(b.trace(), o, half, {base, 16}, original(16));
  for (std::size_t k = 0; k < 16; ++k) EXPECT_EQ(bytes[k], std::byte(k >= 4 && k < 8 ? 0x55 : 0x11)) << k;
}

TEST(Materialize, SkipsOtherMappingsAndRejectsWhatItCannotMap) {
  trace_builder b;
  b.write(t0, 0x1000, 8);          // another mapping
  b.write(t0, base + 28, 8);       // straddles the end of the pool
  const auto o = order_of(b.trace(), persist_model::sbrp);
  store_set only_other = o.empty_set();
  only_other.insert(0);
  EXPECT_EQ(materialize_image(b.trace(), o, only_other, {base, 32}, original(32)), original(32));
  const store_set all = crash_state_at(o, 2).issued;
  EXPECT_THROW(materialize_image(b.trace(), o, all, {base, 32}, original(32)), check_error);
  EXPECT_THROW(materialize_image(b.trace(), o, only_other, {base, 32}, original(31)), check_error);

  trace_builder wide;
  wide.write(t0, base, 128);  // the trace keeps 64 bytes of it
  const auto ow = order_of(wide.trace(), persist_model::sbrp, 64);
  store_set tail = ow.empty_set();
  tail.insert(1);
  EXPECT_THROW(materialize_image(wide.trace(), ow, tail, {base, 128}, original(128)), check_error);
  store_set head = ow.empty_set();
  head.insert(0);
  EXPECT_NO_THROW(materialize_image(wide.trace(), ow, head, {base, 128}, original(128)));
}

TEST(MaterializePools, RebuildsEachFileFromItsFirstMappingAndTheStoresOfEveryMapping) {
  // One file mapped twice at different addresses, a second file mapped later
  // at the first one's old address.
  trace_builder b;
  auto& t = b.trace();
  t.pools.push_back({"a.pool", base, 16, 0, 2, std::vector<std::uint8_t>(16, 0x11)});
  b.host_write(base, 8, 0xa1);            // #0: a.pool offset 0
  b.host_persist(base, 8);                // #1
  t.pools.push_back({"a.pool", base + 4096, 16, 2, gpmx::trace::no_event, std::vector<std::uint8_t>(16, 0x77)});
  t.pools.push_back({"b.pool", base, 8, 2, gpmx::trace::no_event, std::vector<std::uint8_t>(8, 0x22)});
  b.host_write(base + 4096 + 8, 8, 0xa2);  // #2: a.pool offset 8, second mapping
  b.host_write(base, 8, 0xb1);             // #3: b.pool offset 0
  const auto o = order_of(t, persist_model::epoch);
  const store_set all = crash_state_at(o, 4).issued;
  const auto files = materialize_pools(t, o, all, 4);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "a.pool");
  EXPECT_EQ(files[0].bytes[0], std::byte{0xa1});
  EXPECT_EQ(files[0].bytes[8], std::byte{0xa2});  // first mapping's bytes: 0x11, not the second's 0x77
  EXPECT_EQ(files[1].path, "b.pool");
  EXPECT_EQ(files[1].bytes[0], std::byte{0xb1});

  store_set none = o.empty_set();
  const auto at_start = materialize_pools(t, o, none, 1);
  ASSERT_EQ(at_start.size(), 1u);  // b.pool was mapped after the crash
  EXPECT_EQ(at_start[0].bytes[0], std::byte{0x11});
}

}  // namespace
