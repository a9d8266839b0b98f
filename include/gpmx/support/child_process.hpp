#pragma once
// A forked child process with a pipe from it to its parent: the one place
// gpmx forks. Crash tests, the crash watchdog, the demo and the checker's
// image jobs run work in a child, read what it reports, SIGKILL it (a crash:
// no clean-up runs in it) and reap it. Fork only from a process that has no
// other thread: the child would inherit locks held by threads it lacks.
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace gpmx {

// How a child ended: an exit status or a signal.
struct child_exit {
  int status = -1;  // its exit status; -1 when a signal ended it
  int signal = 0;   // the signal that ended it; 0 when it exited
  bool exited_with(int s) const { return signal == 0 && status == s; }
  bool killed_by(int sig) const { return signal == sig; }
};

// Called first in a freshly forked child of `parent`: the child is SIGKILLed
// when its parent ends (PR_SET_PDEATHSIG, kept across exec), and ends at once
// if the parent is already gone. A SIGTERM or SIGINT sent to the parent
// alone thus leaves no child behind. It also gives SIGINT, SIGTERM and
// SIGHUP their default actions and empties the interrupt registry
// (interrupt_cleanup::forget_in_child): the parent's cleanup is not the child's.
void die_with(pid_t parent);

class child_process {
 public:
  // Forks a child that runs body(report_fd), report_fd being the pipe's
  // writing end, and exits with the status body returns (2 when body
  // throws): it never returns into the caller's code. The child dies with
  // this process (die_with). Throws gpmx::error
  // (io), naming `purpose` ("check an image"), when the pipe or the fork fails.
  static child_process start(std::string_view purpose, const std::function<int(int report_fd)>& body);

  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process();  // kills and reaps a child not yet waited for

  // The pipe's reading end, to poll.
  int report_fd() const { return fd_; }
  void set_nonblocking();
  // Up to n bytes from the pipe: the count read, 0 once the child has closed
  // its end, -1 when nothing has arrived yet (non-blocking) or reading
  // failed. Interrupted reads are retried.
  long read_some(void* buf, std::size_t n);
  // Exactly n bytes; false when the pipe ends first.
  bool read_exact(void* buf, std::size_t n);

  void kill();        // SIGKILL, unless already reaped
  child_exit wait();  // reaps the child; later calls give the same answer

 private:
  child_process(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  void release();

  pid_t pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  child_exit exit_;
};

// Writes all n bytes to fd (a child's report pipe, or any descriptor),
// retrying interrupted writes; false when the reader is gone or writing
// failed.
bool write_all(int fd, const void* data, std::size_t n);
// Reads exactly n bytes from fd, retrying interrupted reads; false when it
// ends first or reading failed.
bool read_all(int fd, void* data, std::size_t n);
// write_all to a socket with MSG_NOSIGNAL: a peer that is gone makes it
// return false instead of raising SIGPIPE.
bool send_all(int socket, const void* data, std::size_t n);

// Runs `command` with /bin/sh -c in a child that dies with this process
// (die_with; the shell runs a simple command in place, so the command itself
// is covered too) and waits for it. Throws gpmx::error (io) when the fork
// fails.
child_exit run_shell(const std::string& command);

}  // namespace gpmx
