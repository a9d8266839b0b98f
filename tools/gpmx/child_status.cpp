#include "child_status.hpp"

#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <fstream>
#include <sys/wait.h>

namespace gpmx::cli {

std::string describe_wait_status(int status) {
  if (status == -1) return "could not be started";
  if (WIFSIGNALED(status))
    return fmt::format("was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) {
    // The shell reports a command it could not find or run as 127 or 126.
    const int code = WEXITSTATUS(status);
    if (code == 127) return "exited with code 127 (the shell found no such command)";
    if (code == 126) return "exited with code 126 (the shell could not run it)";
    return fmt::format("exited with code {}", code);
  }
  return fmt::format("ended with wait status {}", status);
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
