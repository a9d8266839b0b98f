#pragma once
// Tokens of the litmus language; comments (# or //) and whitespace skipped.
#include <string>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus::detail {

struct Token {
  enum class Kind { Ident, Number, Punct, String, End };
  Kind kind = Kind::End;
  std::string text;
  Value number = 0;
  SrcPos pos;
};

// Throws ParseError naming the position of a character it cannot read.
std::vector<Token> lex(const std::string& text, const std::string& file);

}  // namespace gpmx::litmus::detail
