#include "gpmx/support/interrupt_cleanup.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace gpmx::interrupt_cleanup {
namespace {

// The registry lives in static storage and is read by a signal handler, so
// it takes no lock: a slot is claimed with a compare-and-swap, filled, and
// only then marked ready; the handler acts on ready slots alone. A signal
// that lands while a slot is being filled misses that one path (a window of
// a few instructions); nothing it reads is ever half-written.
enum slot_state : int { free_slot, filling, ready };
constexpr int max_paths = 256;
constexpr int max_children = 1024;
constexpr std::size_t max_path_bytes = 4096;

struct path_slot {
  std::atomic<int> state{free_slot};
  char path[max_path_bytes];
};
path_slot paths[max_paths];
std::atomic<pid_t> children[max_children];
std::atomic<bool> cleaning{false};

// Removes a tree without anything a signal handler may not call: vfork and
// execve of rm (no allocation, no locks, no atfork handlers in this process).
void remove_tree(const char* path) {
  const char* argv[] = {"rm", "-rf", "--", path, nullptr};
  const char* envp[] = {nullptr};
  const pid_t pid = ::vfork();
  if (pid == 0) {
    ::execve("/bin/rm", const_cast<char* const*>(argv), const_cast<char* const*>(envp));
    ::_exit(127);
  }
  if (pid > 0)
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

void clean_up_and_end(int sig) {
  // A second signal on another thread waits for the first one's cleanup,
  // which ends the process.
  if (cleaning.exchange(true)) {
    for (;;) ::pause();
  }
  for (auto& c : children)
    if (const pid_t pid = c.load(); pid > 0) ::kill(pid, SIGKILL);
  for (auto& c : children)
    if (const pid_t pid = c.load(); pid > 0)
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
  for (path_slot& s : paths)
    if (s.state.load() == ready) remove_tree(s.path);
  // The handler was installed with SA_RESETHAND: the signal, raised again,
  // takes its default action once the handler returns, so whoever sent it
  // sees the process end by it.
  ::raise(sig);
}

}  // namespace

void install() {
  struct sigaction sa {};
  sa.sa_handler = clean_up_and_end;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, sig);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void forget_in_child() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, SIG_DFL);
  for (auto& c : children) c.store(0);
  for (path_slot& s : paths) s.state.store(free_slot);
}

scratch_path::scratch_path(std::filesystem::path p) : path_(std::move(p)) {
  const std::string& text = path_.native();
  if (text.size() >= max_path_bytes) return;  // too long to keep: not removed on an interrupt
  for (int i = 0; i < max_paths; ++i) {
    int expected = free_slot;
    if (!paths[i].state.compare_exchange_strong(expected, filling)) continue;
    std::memcpy(paths[i].path, text.c_str(), text.size() + 1);
    paths[i].state.store(ready);
    slot_ = i;
    return;
  }
}

scratch_path::~scratch_path() {
  if (slot_ >= 0) paths[slot_].state.store(free_slot);
}

void add_child(pid_t pid) {
  for (auto& c : children) {
    pid_t expected = 0;
    if (c.compare_exchange_strong(expected, pid)) return;
  }
}

void remove_child(pid_t pid) {
  for (auto& c : children) {
    pid_t expected = pid;
    if (c.compare_exchange_strong(expected, 0)) return;
  }
}

}  // namespace gpmx::interrupt_cleanup
