#pragma once
// Parsing litmus text into a Program. Errors name file:line:column.
#include <stdexcept>
#include <string>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus {

class ParseError : public std::runtime_error {
 public:
  ParseError(const std::string& file, SrcPos pos, const std::string& msg);
  SrcPos pos;
};

Program parse_program(const std::string& text, const std::string& file = "<input>");
Program parse_file(const std::string& path);

}  // namespace gpmx::litmus
