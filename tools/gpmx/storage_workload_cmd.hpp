#pragma once
// gpmx run | verify | recover for the storage (BaM) workloads, which keep
// their data in device files under DATA/W and have nothing to recover.
#include <string>
#include <string_view>
#include <vector>

namespace gpmx::cli {

struct storage_command {
  std::string workload, data;
  unsigned workers = 0;
  std::vector<std::string> param_texts;
  bool json = false, quiet = false;
  std::string backend = "cpu";  // where kernels run: cpu or cuda
  // Options of the recoverable workloads that mean nothing here; each set
  // one is refused by name.
  std::vector<std::string> inapplicable;
};

// Runs `verb` ("run", "verify", "recover") on storage workload c.workload;
// returns false when there is no storage workload of that name.
bool run_storage_workload(const storage_command& c, std::string_view verb);

}  // namespace gpmx::cli
