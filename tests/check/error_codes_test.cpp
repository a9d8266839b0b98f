// The checker's and the trace file's errors are gpmx::errors with a code: a
// name the user gave that means nothing is `config` (the command line's
// usage error), what the checker cannot check is `check`.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "check/trace_builder.hpp"
#include "gpmx/check/check_run.hpp"
#include "gpmx/check/crash_point.hpp"
#include "gpmx/check/images.hpp"
#include "gpmx/check/model.hpp"
#include "gpmx/trace/trace_file.hpp"

namespace {
using namespace gpmx;

template <class F>
error_code code_of(F&& f) {
  try {
    f();
  } catch (const error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no gpmx::error was thrown";
  return error_code::usage;
}

TEST(CheckErrors, UnknownNamesAreConfigErrors) {
  EXPECT_EQ(code_of([] { check::parse_model("release"); }), error_code::config);
  EXPECT_EQ(code_of([] { check::parse_strategy("shuffle"); }), error_code::config);
  EXPECT_THROW(check::parse_model("release"), check::check_error);
}

TEST(CheckErrors, WhatCannotBeCheckedIsACheckError) {
  check_test::trace_builder b;
  b.kernel_begin();
  b.kernel_end();
  EXPECT_EQ(code_of([&] { check::every_n_crash_points(b.trace(), 0); }), error_code::check);
  EXPECT_EQ(code_of([&] { check::check_trace(b.trace(), {}, {}); }), error_code::check);  // no scratch directory
}

TEST(CheckErrors, ADamagedTraceIsATraceFormatError) {
  const std::vector<std::uint8_t> bytes(10, 0);
  EXPECT_EQ(code_of([&] { trace::decode(bytes, "cut"); }), error_code::trace_format);
}

}  // namespace
