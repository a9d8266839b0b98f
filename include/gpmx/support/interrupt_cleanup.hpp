#pragma once
// What a gpmx process does when SIGINT, SIGTERM or SIGHUP reaches it: SIGKILL
// and reap the children it started (child_process), remove the scratch paths
// registered here, then end by the same signal, so whoever sent it sees how
// the process ended. Children also die on their own when the process ends by
// any other means (child_process.hpp, die_with).
//
// install() sets a handler for the three signals that does the cleanup
// with async-signal-safe calls only (kill, waitpid, and openat, getdents64
// and unlinkat to remove trees)
// over a registry that takes no lock; it starts no thread, so a process that
// forks before starting threads stays single-threaded when it forks. Call it
// first in main. Without install(), registration only keeps a list. Room is
// fixed: 256 paths and 1024 children (more are not cleaned up).
#include <sys/types.h>

#include <filesystem>

namespace gpmx::interrupt_cleanup {

void install();
// In a forked child: default actions for the three signals and an empty
// registry, so an interrupt of the child never acts on its parent's list.
void forget_in_child();

// A path removed (with everything under it) on an interrupt while this
// object lives. scratch_dir holds one.
class scratch_path {
 public:
  explicit scratch_path(std::filesystem::path p);
  ~scratch_path();
  scratch_path(const scratch_path&) = delete;
  scratch_path& operator=(const scratch_path&) = delete;

 private:
  std::filesystem::path path_;
  int slot_ = -1;  // its place in the registry, or -1 when it did not fit
};

// A child that an interrupt kills before the paths are removed (so it
// cannot write into them afterwards). child_process registers its children.
void add_child(pid_t pid);
void remove_child(pid_t pid);

}  // namespace gpmx::interrupt_cleanup
