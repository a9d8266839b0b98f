#pragma once
// What a gpmx process does when SIGINT, SIGTERM or SIGHUP reaches it: SIGKILL
// and reap the children it started (child_process), remove the scratch paths
// registered here, then end by the same signal, so whoever sent it sees how
// the process ended. Children also die on their own when the process ends by
// any other means (child_process.hpp, die_with).
//
// install() blocks the three signals in the calling thread (and so in every
// thread started after it) and waits for them on a thread of its own; call it
// first in main. Without install(), registration only keeps a list.
#include <sys/types.h>

#include <filesystem>

namespace gpmx::interrupt_cleanup {

void install();

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
};

// A child that an interrupt kills before the paths are removed (so it
// cannot write into them afterwards). child_process registers its children.
void add_child(pid_t pid);
void remove_child(pid_t pid);

}  // namespace gpmx::interrupt_cleanup
