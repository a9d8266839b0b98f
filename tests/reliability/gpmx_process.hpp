#pragma once
// Runs the gpmx command line as a child process, as a user would: its exit
// status and everything it printed. The binary's path comes from the build
// (GPMX_BINARY).
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gpmx::test {

struct gpmx_result {
  int status = -1;  // exit status; -1 when a signal ended it
  std::string output;  // stdout and stderr together
};

// Starts gpmx with args in directory cwd, its output going to `out_file`;
// returns its pid without waiting.
inline pid_t start_gpmx(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                        const std::filesystem::path& out_file) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(120);
    const int fd = ::open(out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) ::_exit(121);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> argv;
    std::string bin = GPMX_BINARY;
    argv.push_back(bin.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(122);
  }
  return pid;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline int wait_status(pid_t pid) {
  int st = 0;
  while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Runs gpmx with args in cwd to completion.
inline gpmx_result run_gpmx(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  const std::filesystem::path out = cwd / "gpmx-output.txt";
  const pid_t pid = start_gpmx(args, cwd, out);
  gpmx_result r;
  r.status = wait_status(pid);
  r.output = read_text(out);
  return r;
}

// Whether pid has ended (gone, or a zombie nobody has reaped yet).
inline bool process_ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] == 'Z';
}

// The live children of pid, from /proc.
inline std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    char state = 0;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(pid_t(std::stol(name)));
  }
  return out;
}

// Every data file under dir with its bytes, to compare before and after.
// Lock files (W.lock, holding the last holder's pid) are not data.
inline std::vector<std::pair<std::string, std::string>> snapshot(const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() != ".lock") out.emplace_back(e.path().string(), read_text(e.path()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace gpmx::test
