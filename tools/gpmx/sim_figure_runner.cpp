#include "sim_figure_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include <fmt/format.h>

#include "gpmx/support/error.hpp"

namespace gpmx::cli {
namespace {

// In the forked child: output to the log, then this executable again.
[[noreturn]] void exec_self(const std::string& self, const child_run& r) {
  const int fd = ::open(r.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(self.c_str()));
  for (const std::string& a : r.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(self.c_str(), argv.data());
  ::_exit(127);
}

}  // namespace

void run_children(std::vector<child_run>& runs, unsigned jobs,
                  const std::function<void(std::size_t, std::size_t)>& progress, const std::function<void()>& tick) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) throw gpmx::error(error_code::io, fmt::format("cannot find this executable (/proc/self/exe): {}", ec.message()));
  jobs = std::max(1u, jobs);
  struct running {
    std::size_t index;
    std::optional<child_process> child;
  };
  std::vector<running> live;
  std::size_t next = 0, done = 0;
  while (done < runs.size()) {
    while (live.size() < jobs && next < runs.size()) {
      const std::size_t i = next++;
      // The child's end of the report pipe stays open across exec: the
      // parent sees it close when the child ends.
      live.push_back({i, child_process::start("run a simulation", [&self, &runs, i](int) -> int {
                        exec_self(self, runs[i]);
                      })});
    }
    std::vector<pollfd> fds;
    for (const running& r : live) fds.push_back({r.child->report_fd(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), tick ? 500 : -1) < 0 && errno != EINTR)
      throw gpmx::error(error_code::io, "waiting for the simulations: poll failed");
    if (tick) tick();
    for (std::size_t k = fds.size(); k-- > 0;) {
      if (fds[k].revents == 0) continue;
      char buf[256];
      if (live[k].child->read_some(buf, sizeof buf) > 0) continue;  // nothing is sent; drain anyway
      runs[live[k].index].exit = live[k].child->wait();
      live.erase(live.begin() + std::ptrdiff_t(k));
      progress(++done, runs.size());
    }
  }
}

}  // namespace gpmx::cli
