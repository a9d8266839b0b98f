#pragma once
// Checks of option values the parser alone lets through. CLI11 reads an
// unsigned option with strtoull, which takes "-5" as 2^64-5 and a number
// past 2^64-1 as 2^64-1; no gpmx option means a negative number, so every
// option refuses one (and an integer too large for 64 bits) with exit 2 and
// a message naming the option and the value.
#include <string>

#include <CLI/CLI.hpp>

namespace gpmx::cli {

// Adds the check to every option of app and of its subcommands, recursively.
void refuse_negative_and_overflowing_numbers(CLI::App& app);

// Seconds: a finite number greater than zero (not 0, negative, nan or inf).
CLI::Validator positive_seconds();

// The message for the first word of argv that names no subcommand where one
// is required (gpmx WORD, gpmx bench WORD; CLI11 would report only that a
// subcommand is required); empty otherwise.
std::string unknown_subcommand(CLI::App& app, int argc, char** argv);

}  // namespace gpmx::cli
