#pragma once
// Parsing litmus text into a program. Errors name file:line:column.
#include <string>

#include "gpmx/litmus/ast.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::litmus {

// Litmus text that does not parse; position() is where the fault is.
class parse_error : public error {
 public:
  parse_error(const std::string& file, src_pos pos, const std::string& msg);
  src_pos position() const { return pos_; }

 private:
  src_pos pos_;
};

program parse_program(const std::string& text, const std::string& file = "<input>");
// Also throws gpmx::error (io) when the file cannot be read.
program parse_file(const std::string& path);

}  // namespace gpmx::litmus
