#pragma once
// The main demo: a recoverable key-value store that survives a SIGKILL in
// the middle of a batch.
#include <cstdint>
#include <filesystem>

namespace gpmx::cli {

struct kvs_demo_options {
  std::filesystem::path data = "gpmx-data";
  std::uint32_t sets = 1 << 14;
  std::uint32_t batch = 4096;
  std::uint32_t load_batches = 16;
  unsigned workers = 0;
  bool json = false;
};

// Returns the process exit status: 0 when every key verified, 3 when not.
int run_kvs_demo(const kvs_demo_options& o);

}  // namespace gpmx::cli
