#include "gpmx/pm/stored_value.hpp"

#include <fmt/format.h>

namespace gpmx::pm {

void throw_corrupt_value(const std::filesystem::path& file, std::string_view region, std::string_view field,
                         std::uint64_t value, std::string_view allowed) {
  throw pm_error(errc::corrupt_value, fmt::format("{}: region '{}', {} holds {}; {} (the file is corrupt)",
                                                  file.string(), region, field, value, allowed));
}

void throw_corrupt_region(const std::filesystem::path& file, std::string_view region, std::string_view what) {
  throw pm_error(errc::corrupt_value,
                 fmt::format("{}: region '{}': {} (the file is corrupt)", file.string(), region, what));
}

std::uint64_t check_stored(const std::filesystem::path& file, std::string_view region, std::string_view field,
                           std::uint64_t value, std::uint64_t lo, std::uint64_t hi) {
  if (value < lo || value > hi) throw_corrupt_value(file, region, field, value, fmt::format("expected {} to {}", lo, hi));
  return value;
}

std::string printable(std::string_view raw, std::size_t limit) {
  std::string out;
  for (std::size_t i = 0; i < raw.size() && i < limit; ++i) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') out += char(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  if (raw.size() > limit) out += "...";
  return out;
}

}  // namespace gpmx::pm
