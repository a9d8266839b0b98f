#pragma once
// Tokens of the litmus language; comments (# or //) and whitespace skipped.
#include <string>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus::detail {

enum class token_kind { ident, number, punct, string, end };

struct token {
  token_kind kind = token_kind::end;
  std::string text;
  value number = 0;
  src_pos pos;
};

// Throws parse_error naming the position of a character it cannot read.
std::vector<token> lex(const std::string& text, const std::string& file);

}  // namespace gpmx::litmus::detail
