#include "option_checks.hpp"

#include <cctype>
#include <cmath>
#include <string_view>

namespace gpmx::cli {
namespace {

std::string_view trimmed(std::string_view v) {
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  return v;
}

bool looks_negative(std::string_view v) {
  v = trimmed(v);
  if (v.size() < 2 || v[0] != '-') return false;
  const char c = char(std::tolower(static_cast<unsigned char>(v[1])));
  return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'i' || c == 'n';  // -5, -.5, -inf, -nan
}

// A decimal integer of more than 64 bits.
bool overflows_64_bits(std::string_view v) {
  v = trimmed(v);
  if (!v.empty() && v[0] == '+') v.remove_prefix(1);
  if (v.empty()) return false;
  for (const char c : v)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  while (v.size() > 1 && v[0] == '0') v.remove_prefix(1);
  constexpr std::string_view max = "18446744073709551615";
  return v.size() > max.size() || (v.size() == max.size() && v > max);
}

const CLI::Validator& number_check() {
  static const CLI::Validator check(
      [](std::string& value) -> std::string {
        if (looks_negative(value)) return "'" + value + "' is negative; the option takes a non-negative number";
        if (overflows_64_bits(value)) return "'" + value + "' exceeds 2^64-1";
        return {};
      },
      "", "non-negative");
  return check;
}

}  // namespace

void refuse_negative_and_overflowing_numbers(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->get_type_size() != 0) o->check(number_check());
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    refuse_negative_and_overflowing_numbers(*sub);
}

CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        try {
          std::size_t used = 0;
          const double s = std::stod(value, &used);
          if (used == value.size() && std::isfinite(s) && s > 0) return {};
        } catch (const std::exception&) {
        }
        return "'" + value + "' is not a number of seconds greater than 0";
      },
      "SECONDS>0", "positive seconds");
}

std::string unknown_subcommand(CLI::App& app, int argc, char** argv) {
  // Down the words while each level requires a subcommand (gpmx, gpmx bench).
  CLI::App* level = &app;
  std::string named;
  for (int i = 1; i < argc && argv[i][0] != '-' && level->get_require_subcommand_min() > 0; ++i) {
    const std::string word = argv[i];
    CLI::App* next = nullptr;
    std::string known;
    for (CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; })) {
      if (sub->check_name(word)) next = sub;
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!next) return "unknown subcommand '" + named + word + "' (one of: " + known + ")";
    named += word + " ";
    level = next;
  }
  return {};
}

}  // namespace gpmx::cli
