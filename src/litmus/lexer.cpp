#include "lexer.hpp"

#include <cctype>

#include "gpmx/litmus/parser.hpp"

namespace gpmx::litmus::detail {

std::vector<token> lex(const std::string& text, const std::string& file) {
  std::vector<token> out;
  int line = 1, col = 1;
  std::size_t i = 0;
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') { ++line; col = 1; } else { ++col; }
    }
  };
  static const char* const two_char[] = {"==", "!=", "<=", ">=", "&&", "||", "<<", ">>"};
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c)) != 0) { advance(1); continue; }
    if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      while (i < text.size() && text[i] != '\n') advance(1);
      continue;
    }
    token t;
    t.pos = {line, col};
    if (std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_') {
      std::size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) != 0 || text[j] == '_')) ++j;
      // A few keywords are hyphenated; everywhere else '-' is subtraction.
      for (const char* word : {"non-ordering", "hrf-direct", "hrf-indirect"}) {
        const std::string w(word);
        if (text.compare(i, w.size(), w) == 0 &&
            (i + w.size() >= text.size() || std::isalnum(static_cast<unsigned char>(text[i + w.size()])) == 0)) {
          j = i + w.size();
        }
      }
      t.kind = token_kind::ident;
      t.text = text.substr(i, j - i);
      advance(j - i);
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      std::size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) != 0) ++j;
      t.kind = token_kind::number;
      t.text = text.substr(i, j - i);
      try {
        t.number = std::stoll(t.text);
      } catch (const std::exception&) {
        throw parse_error(file, t.pos, "number out of range: " + t.text);
      }
      advance(j - i);
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"' && text[j] != '\n') ++j;
      if (j >= text.size() || text[j] != '"') throw parse_error(file, t.pos, "unterminated string");
      t.kind = token_kind::string;
      t.text = text.substr(i + 1, j - i - 1);
      advance(j - i + 1);
    } else {
      t.kind = token_kind::punct;
      t.text = std::string(1, c);
      for (const char* two : two_char) {
        if (text.compare(i, 2, two) == 0) { t.text = two; break; }
      }
      if (std::string("{}()[];,=.:+-*/%&|^!<>~").find(c) == std::string::npos)
        throw parse_error(file, t.pos, std::string("unexpected character '") + c + "'");
      advance(t.text.size());
    }
    out.push_back(std::move(t));
  }
  token end;
  end.kind = token_kind::end;
  end.text = "end of file";
  end.pos = {line, col};
  out.push_back(end);
  return out;
}

}  // namespace gpmx::litmus::detail
