#pragma once
// Checks on values read back from PM before they are used. A crash leaves
// only values the program wrote, so a word outside what its structure allows
// (a log tail past the log's capacity, a slot index past the table, a zero
// size) means the file was damaged: recovery and verification stop with a
// pm_error(errc::corrupt_value) naming the file, region, field and value
// instead of dividing by it, indexing with it or writing through it.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "gpmx/pm/errors.hpp"

namespace gpmx::pm {

// Throws pm_error(corrupt_value): "FILE: region 'REGION', FIELD holds VALUE;
// ALLOWED".
[[noreturn]] void throw_corrupt_value(const std::filesystem::path& file, std::string_view region,
                                      std::string_view field, std::uint64_t value, std::string_view allowed);
// Throws pm_error(corrupt_value) with a message of the caller's: "FILE:
// region 'REGION': WHAT".
[[noreturn]] void throw_corrupt_region(const std::filesystem::path& file, std::string_view region,
                                       std::string_view what);

// value, when lo <= value <= hi; otherwise throw_corrupt_value.
std::uint64_t check_stored(const std::filesystem::path& file, std::string_view region, std::string_view field,
                           std::uint64_t value, std::uint64_t lo, std::uint64_t hi);

// Bytes read from PM as text fit for a message: printable ASCII as is, every
// other byte as \xNN, at most `limit` bytes shown.
std::string printable(std::string_view raw, std::size_t limit = 64);

}  // namespace gpmx::pm
