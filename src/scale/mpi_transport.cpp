#include "gpmx/scale/mpi_transport.hpp"

#include <mpi.h>

#include <fmt/format.h>
#include <thread>

#include "gpmx/support/error.hpp"

namespace gpmx::scale {
namespace {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw error(error_code::io, fmt::format("MPI: {} failed: {}", what, std::string(text, std::size_t(length))));
}

}  // namespace

struct mpi_transport::outgoing {
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

mpi_transport::mpi_transport(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) throw error(error_code::usage, "MPI is already initialized: make one mpi_transport per process");
  check_mpi(MPI_Init(argc, argv), "MPI_Init");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  rank_ = unsigned(rank);
  size_ = unsigned(size);
}

mpi_transport::~mpi_transport() {
  // Posts a lost peer never took would keep MPI_Finalize waiting.
  for (auto& o : posted_) {
    int done = 0;
    MPI_Test(&o->request, &done, MPI_STATUS_IGNORE);
    if (!done) {
      MPI_Cancel(&o->request);
      MPI_Request_free(&o->request);
    }
  }
  posted_.clear();
  if (!peer_lost_) MPI_Finalize();
}

void mpi_transport::give_up_on(unsigned rank) {
  (void)rank;
  peer_lost_ = true;
}

void mpi_transport::reap_posted() {
  std::erase_if(posted_, [](const std::unique_ptr<outgoing>& o) {
    int done = 0;
    MPI_Test(&o->request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

void mpi_transport::post(unsigned to, int tag, std::string bytes) {
  reap_posted();
  auto o = std::make_unique<outgoing>();
  o->bytes = std::move(bytes);
  sent_ += o->bytes.size();
  check_mpi(MPI_Isend(o->bytes.data(), int(o->bytes.size()), MPI_BYTE, int(to), tag, MPI_COMM_WORLD, &o->request),
            "MPI_Isend");
  posted_.push_back(std::move(o));
}

void mpi_transport::send(unsigned to, int tag, std::string bytes, std::chrono::duration<double> patience) {
  if (bytes.size() > std::size_t(INT32_MAX))
    throw error(error_code::capacity, fmt::format("a message of {} bytes to rank {} is larger than MPI sends at once",
                                                  bytes.size(), to));
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Isend(bytes.data(), int(bytes.size()), MPI_BYTE, int(to), tag, MPI_COMM_WORLD, &request), "MPI_Isend");
  const auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) break;
    if (std::chrono::steady_clock::now() > deadline) {
      MPI_Cancel(&request);
      MPI_Request_free(&request);
      throw error(error_code::io, fmt::format("rank {} did not take a message of {} bytes within {:.0f} s",
                                              to, bytes.size(), patience.count()));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // MPI would spin a core otherwise
  }
  sent_ += bytes.size();
}

std::optional<rank_message> mpi_transport::poll() {
  reap_posted();
  int flag = 0;
  MPI_Status status;
  check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  rank_message m;
  m.from = unsigned(status.MPI_SOURCE);
  m.tag = status.MPI_TAG;
  m.bytes.resize(std::size_t(count));
  check_mpi(MPI_Recv(m.bytes.data(), count, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE),
            "MPI_Recv");
  received_ += m.bytes.size();
  return m;
}

}  // namespace gpmx::scale
