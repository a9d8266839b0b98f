// The mixers feed deterministic workload data and gpKVS's key placement:
// their values are pinned here, so a change to them cannot go unnoticed.
#include <gtest/gtest.h>

#include <cstdint>

#include "gpmx/support/hash_mix.hpp"

namespace {

struct pinned {
  std::uint64_t in, mix64, one_round;
};

// mix64 is MurmurHash3's fmix64 (fmix64(1) is the published 0xb456bcfc34c2cb2c).
constexpr pinned values[] = {
    {0, 0, 0},
    {1, 0xb456bcfc34c2cb2cull, 0xff51afd792fd5b26ull},
    {2022, 0x1c94e8a4b22638e2ull, 0x9f32e37cde2f6a90ull},
    {0x123456789abcdef0ull, 0x18b8c062f6f42398ull, 0xa6b8a99f50863093ull},
    {~0ull, 0x64b5720b4b825f21ull, 0x0955399984aa9cccull},
};

TEST(HashMix, ValuesNeverChange) {
  for (const pinned& p : values) {
    EXPECT_EQ(gpmx::mix64(p.in), p.mix64) << p.in;
    EXPECT_EQ(gpmx::mix64_one_round(p.in), p.one_round) << p.in;
  }
}

TEST(HashMix, UsableAtCompileTime) {
  static_assert(gpmx::mix64(1) == 0xb456bcfc34c2cb2cull);
  SUCCEED();
}

}  // namespace
