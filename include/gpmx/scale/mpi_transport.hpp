#pragma once
// rank_transport over MPI (built with GPMX_MPI when an MPI library is
// found). Made once per process: it initializes MPI and finalizes it when
// destroyed, unless a peer was given up for lost: MPI_Finalize waits for
// every rank, so the process then ends without it (mpirun notes that). Errors on the world communicator are returned, not fatal, so
// that a lost peer shows as silence rather than an abort.
#include <memory>
#include <vector>

#include "gpmx/scale/rank_transport.hpp"

namespace gpmx::scale {

class mpi_transport final : public rank_transport {
 public:
  mpi_transport(int* argc, char*** argv);
  ~mpi_transport() override;
  mpi_transport(const mpi_transport&) = delete;
  mpi_transport& operator=(const mpi_transport&) = delete;

  unsigned rank() const override { return rank_; }
  unsigned size() const override { return size_; }
  void post(unsigned to, int tag, std::string bytes) override;
  void send(unsigned to, int tag, std::string bytes, std::chrono::duration<double> patience) override;
  std::optional<rank_message> poll() override;
  void give_up_on(unsigned rank) override;
  std::uint64_t bytes_sent() const override { return sent_; }
  std::uint64_t bytes_received() const override { return received_; }

 private:
  struct outgoing;
  void reap_posted();

  unsigned rank_ = 0, size_ = 1;
  bool peer_lost_ = false;
  std::uint64_t sent_ = 0, received_ = 0;
  std::vector<std::unique_ptr<outgoing>> posted_;  // sends still in flight, with their buffers
};

}  // namespace gpmx::scale
