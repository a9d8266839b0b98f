#pragma once
// Messages between the ranks of one job, as the distributed check needs
// them: point to point, never collective (a collective with a dead rank in
// it never returns), never blocking for long (a dead peer must not hang the
// living). mpi_transport is the one over MPI; the protocol above it
// (distributed_check) knows nothing of MPI.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gpmx::scale {

struct rank_message {
  unsigned from = 0;
  int tag = 0;
  std::string bytes;
};

class rank_transport {
 public:
  virtual ~rank_transport() = default;
  virtual unsigned rank() const = 0;
  virtual unsigned size() const = 0;
  // Sends and returns at once; the bytes are copied. A peer that is gone
  // loses the message without an error (its loss is noticed by silence).
  virtual void post(unsigned to, int tag, std::string bytes) = 0;
  // Sends and waits until the message has left, at most `patience`; throws
  // gpmx::error (io) naming the peer when it does not leave in time.
  virtual void send(unsigned to, int tag, std::string bytes, std::chrono::duration<double> patience) = 0;
  // The next message that has arrived, if any: never waits.
  virtual std::optional<rank_message> poll() = 0;
  // A peer was given up for lost: ending must not wait for it (MPI_Finalize
  // would, for ever).
  virtual void give_up_on(unsigned rank) = 0;
  // Bytes this rank sent and received, headers left out.
  virtual std::uint64_t bytes_sent() const = 0;
  virtual std::uint64_t bytes_received() const = 0;
};

}  // namespace gpmx::scale
