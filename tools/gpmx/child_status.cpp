#include "child_status.hpp"

#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <fstream>

namespace gpmx::cli {

std::string describe_exit(const child_exit& end) {
  if (end.signal != 0) return fmt::format("was killed by signal {} ({})", end.signal, strsignal(end.signal));
  if (end.status < 0) return "could not be started";
  // The shell reports a command it could not find or run as 127 or 126.
  if (end.status == 127) return "exited with code 127 (the shell found no such command)";
  if (end.status == 126) return "exited with code 126 (the shell could not run it)";
  return fmt::format("exited with code {}", end.status);
}

std::string last_lines(const std::filesystem::path& file, std::size_t n) {
  std::ifstream in(file);
  std::deque<std::string> kept;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    kept.push_back(line.size() > 200 ? line.substr(0, 200) + "..." : line);
    if (kept.size() > n) kept.pop_front();
  }
  std::string out;
  for (const std::string& l : kept) out += (out.empty() ? "" : " | ") + l;
  return out;
}

std::string count_of(std::size_t n, const std::string& noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

}  // namespace gpmx::cli
