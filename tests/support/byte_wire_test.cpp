// byte_wire: what a writer encodes, a reader gets back; a short, padded or
// absurd message is an error naming what was being read, never a crash.
#include <gtest/gtest.h>

#include "gpmx/support/byte_wire.hpp"
#include "gpmx/support/error.hpp"

namespace {

using namespace gpmx;

TEST(ByteWire, ReadsBackWhatWasWritten) {
  byte_writer w;
  w.u64(0x0123456789abcdefull);
  w.f64(-2.5);
  w.boolean(true);
  w.text(std::string("a\0b", 3));
  w.texts({"x", "", "yz"});
  w.u64s({1, 2, ~0ull});
  byte_reader r(w.bytes(), "a test message");
  EXPECT_EQ(r.u64(), 0x0123456789abcdefull);
  EXPECT_EQ(r.f64(), -2.5);
  EXPECT_TRUE(r.boolean());
  EXPECT_EQ(r.text(), std::string("a\0b", 3));
  EXPECT_EQ(r.texts(), (std::vector<std::string>{"x", "", "yz"}));
  EXPECT_EQ(r.u64s(), (std::vector<std::uint64_t>{1, 2, ~0ull}));
  EXPECT_TRUE(r.done());
  EXPECT_NO_THROW(r.expect_end());
}

TEST(ByteWire, ShortMessagesAreErrorsNamingTheMessage) {
  byte_writer w;
  w.text("hello");
  const std::string whole = w.bytes();
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    const std::string part = whole.substr(0, cut);
    byte_reader r(part, "findings from rank 7");
    try {
      (void)r.text();
      ADD_FAILURE() << "a message cut at byte " << cut << " was read";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), error_code::corrupt_data);
      EXPECT_NE(std::string(e.what()).find("findings from rank 7"), std::string::npos) << e.what();
    }
  }
}

TEST(ByteWire, AbsurdCountsAndLeftoverBytesAreRefused) {
  byte_writer w;
  w.u64(1ull << 60);  // a list claiming 2^60 entries in an 8-byte message
  byte_reader numbers(w.bytes(), "numbers");
  EXPECT_THROW((void)numbers.u64s(), error);
  byte_reader strings(w.bytes(), "strings");
  EXPECT_THROW((void)strings.texts(), error);
  byte_writer two;
  two.u64(1);
  two.u64(2);
  byte_reader r(two.bytes(), "two numbers");
  (void)r.u64();
  EXPECT_THROW(r.expect_end(), error);
}

}  // namespace
