#pragma once
// Little-endian binary encoding for messages between gpmx processes of the
// same build (the checker's ranks): numbers, strings and lists, each read
// back with a check that the bytes are there. A short or malformed message
// throws gpmx::error (corrupt_data) naming what was being read.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpmx {

class byte_writer {
 public:
  void u64(std::uint64_t v);
  void f64(double v);
  void boolean(bool v) { u64(v ? 1 : 0); }
  void text(std::string_view s);
  void texts(const std::vector<std::string>& v);
  void u64s(const std::vector<std::uint64_t>& v);
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class byte_reader {
 public:
  // `what` names the message in errors ("findings from rank 3").
  // The bytes are not copied: they must outlive the reader.
  byte_reader(std::string_view bytes, std::string what) : in_(bytes), what_(std::move(what)) {}
  byte_reader(std::string&& temporary, std::string what) = delete;
  std::uint64_t u64();
  double f64();
  bool boolean() { return u64() != 0; }
  std::string text();
  std::vector<std::string> texts();
  std::vector<std::uint64_t> u64s();
  bool done() const { return at_ == in_.size(); }
  // Throws unless every byte was read.
  void expect_end() const;

 private:
  std::string_view take(std::size_t n, const char* item);
  std::string_view in_;
  std::size_t at_ = 0;
  std::string what_;
};

}  // namespace gpmx
