#pragma once
// Saying how a command run through the shell ended, for people: its exit
// code or its signal, and the last lines it wrote to a file.
#include <cstddef>
#include <filesystem>
#include <string>

#include "gpmx/support/child_process.hpp"

namespace gpmx::cli {

// How a child ended: "exited with code 1", "was killed by signal 11 (Segmentation fault)".
std::string describe_exit(const child_exit& end);
// The last `n` non-empty lines of a file, joined by " | "; empty when there are none.
std::string last_lines(const std::filesystem::path& file, std::size_t n);
// "1 image", "2 images": the noun takes an s unless the count is one.
std::string count_of(std::size_t n, const std::string& noun);

}  // namespace gpmx::cli
