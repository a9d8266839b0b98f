#include "gpmx/support/byte_wire.hpp"

#include <bit>
#include <cstring>

#include "gpmx/support/error.hpp"

namespace gpmx {

void byte_writer::u64(std::uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = char((v >> (8 * i)) & 0xff);
  out_.append(b, 8);
}

void byte_writer::f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }

void byte_writer::text(std::string_view s) {
  u64(s.size());
  out_.append(s);
}

void byte_writer::texts(const std::vector<std::string>& v) {
  u64(v.size());
  for (const std::string& s : v) text(s);
}

void byte_writer::u64s(const std::vector<std::uint64_t>& v) {
  u64(v.size());
  for (std::uint64_t x : v) u64(x);
}

std::string_view byte_reader::take(std::size_t n, const char* item) {
  if (n > in_.size() - at_)
    throw error(error_code::corrupt_data, what_ + ": ends inside " + item + " (at byte " + std::to_string(at_) +
                                              " of " + std::to_string(in_.size()) + ")");
  const std::string_view out = in_.substr(at_, n);
  at_ += n;
  return out;
}

std::uint64_t byte_reader::u64() {
  const std::string_view b = take(8, "a number");
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(b[std::size_t(i)])) << (8 * i);
  return v;
}

double byte_reader::f64() { return std::bit_cast<double>(u64()); }

std::string byte_reader::text() {
  const std::uint64_t n = u64();
  return std::string(take(n, "a string"));
}

std::vector<std::string> byte_reader::texts() {
  const std::uint64_t n = u64();
  if (n > (in_.size() - at_) / 8) take(in_.size() - at_ + 1, "a list of strings");  // 8 bytes each at least
  std::vector<std::string> out;
  out.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(text());
  return out;
}

std::vector<std::uint64_t> byte_reader::u64s() {
  const std::uint64_t n = u64();
  if (n > (in_.size() - at_) / 8) take(in_.size() - at_ + 1, "a list of numbers");
  std::vector<std::uint64_t> out;
  out.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) out.push_back(u64());
  return out;
}

void byte_reader::expect_end() const {
  if (!done())
    throw error(error_code::corrupt_data, what_ + ": " + std::to_string(in_.size() - at_) +
                                              " bytes left over after the end of the message");
}

}  // namespace gpmx
