#include "gpmx/support/interrupt_cleanup.hpp"

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace gpmx::interrupt_cleanup {
namespace {

struct registry {
  std::mutex m;
  std::vector<std::filesystem::path> paths;
  std::vector<pid_t> children;
};

registry& the_registry() {
  static registry* r = new registry;  // never destroyed: the cleanup thread may use it during exit
  return *r;
}

sigset_t handled_signals() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  sigaddset(&s, SIGHUP);
  return s;
}

[[noreturn]] void clean_up_and_end(int sig) {
  registry& r = the_registry();
  {
    std::lock_guard lock(r.m);
    for (const pid_t pid : r.children) ::kill(pid, SIGKILL);
    for (const pid_t pid : r.children) {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
    }
    for (const auto& p : r.paths) {
      std::error_code ec;  // nothing to report to: the process is ending
      std::filesystem::remove_all(p, ec);
    }
  }
  ::signal(sig, SIG_DFL);
  const sigset_t s = handled_signals();
  ::pthread_sigmask(SIG_UNBLOCK, &s, nullptr);
  ::raise(sig);
  ::_exit(128 + sig);  // not reached: the signal's default action ends the process
}

}  // namespace

void install() {
  const sigset_t s = handled_signals();
  ::pthread_sigmask(SIG_BLOCK, &s, nullptr);
  std::thread([s] {
    int sig = 0;
    while (::sigwait(&s, &sig) != 0) {
    }
    clean_up_and_end(sig);
  }).detach();
}

scratch_path::scratch_path(std::filesystem::path p) : path_(std::move(p)) {
  registry& r = the_registry();
  std::lock_guard lock(r.m);
  r.paths.push_back(path_);
}

scratch_path::~scratch_path() {
  registry& r = the_registry();
  std::lock_guard lock(r.m);
  const auto it = std::find(r.paths.begin(), r.paths.end(), path_);
  if (it != r.paths.end()) r.paths.erase(it);
}

void add_child(pid_t pid) {
  registry& r = the_registry();
  std::lock_guard lock(r.m);
  r.children.push_back(pid);
}

void remove_child(pid_t pid) {
  registry& r = the_registry();
  std::lock_guard lock(r.m);
  r.children.erase(std::remove(r.children.begin(), r.children.end(), pid), r.children.end());
}

}  // namespace gpmx::interrupt_cleanup
