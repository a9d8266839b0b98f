#include "gpmx/support/interrupt_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
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

// The states apart from the paths: a forked child clears the states
// (forget_in_child) and so touches one page, not the 1 MB of paths, which
// it shares with its parent.
std::atomic<int> path_state[max_paths];
char path_text[max_paths][max_path_bytes];
std::atomic<pid_t> children[max_children];
std::atomic<bool> cleaning{false};

// Removes a tree with system calls alone (openat, getdents64, unlinkat),
// all a signal handler may make: no allocation, no lock, no child process
// (a fork in a handler is refused under ThreadSanitizer and fragile
// elsewhere). The directory buffer is small and the depth bounded, since the
// handler may run on a GPU thread's 64 KiB fiber stack.
struct linux_dirent64 {
  std::uint64_t d_ino;
  std::int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[1];
};

void remove_entries(int dir_fd, int depth) {
  alignas(8) char buf[1024];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, dir_fd, buf, sizeof buf);
    if (n <= 0) return;
    bool removed = false;
    for (long at = 0; at < n;) {
      const auto* e = reinterpret_cast<const linux_dirent64*>(buf + at);
      at += e->d_reclen;
      const char* name = e->d_name;
      if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
      if (e->d_type == DT_DIR && depth < 16) {
        const int sub = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub >= 0) {
          remove_entries(sub, depth + 1);
          ::close(sub);
        }
        removed |= ::unlinkat(dir_fd, name, AT_REMOVEDIR) == 0;
      } else {
        removed |= ::unlinkat(dir_fd, name, 0) == 0;
      }
    }
    // Entries moved under the read position: read the directory again.
    if (removed) ::lseek(dir_fd, 0, SEEK_SET);
  }
}

void remove_tree(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    ::unlink(path);  // a file, or nothing
    return;
  }
  remove_entries(fd, 0);
  ::close(fd);
  ::rmdir(path);
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
  for (int i = 0; i < max_paths; ++i)
    if (path_state[i].load() == ready) remove_tree(path_text[i]);
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
  for (auto& s : path_state) s.store(free_slot);
}

scratch_path::scratch_path(std::filesystem::path p) : path_(std::move(p)) {
  const std::string& text = path_.native();
  if (text.size() >= max_path_bytes) return;  // too long to keep: not removed on an interrupt
  for (int i = 0; i < max_paths; ++i) {
    int expected = free_slot;
    if (!path_state[i].compare_exchange_strong(expected, filling)) continue;
    std::memcpy(path_text[i], text.c_str(), text.size() + 1);
    path_state[i].store(ready);
    slot_ = i;
    return;
  }
}

scratch_path::~scratch_path() {
  if (slot_ >= 0) path_state[slot_].store(free_slot);
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
