#pragma once
// Errors of the persistent-memory layer: one code per distinct fault, and a
// message that names the file, region or argument at fault.
#include <string>

#include "gpmx/support/error.hpp"

namespace gpmx::pm {

enum class errc {
  io,                 // the operating system refused (open, map, sync, rename)
  already_exists,     // create: the path is taken
  not_a_pool,         // the file does not start with gpmx's pool magic
  wrong_version,      // a pool of another format version
  truncated,          // the file is shorter than its header says
  checksum_mismatch,  // the header or both namespace tables fail their checksums
  name_too_long,
  name_empty,
  duplicate_name,
  missing_region,
  bad_size,           // zero, or larger than the pool can hold
  table_full,         // the namespace table has no free entry
  out_of_space,       // no free extent large enough
  bad_argument,
  log_entry_too_large,  // an entry larger than the thread's slot or partition
  log_full,             // no room left for the entry
  log_empty,            // read or remove from a log with no entry
  log_geometry,         // a thread outside the blocks x threads the HCL log was made for
  checkpoint_full,        // register: past a group's element count or byte capacity
  no_consistent_copy,     // restore: the group was never saved
  registration_mismatch,  // register/save/restore: buffers differ from those recorded
  corrupt_value,          // a word read back from PM lies outside what its structure allows
};

const char* to_string(errc c);
// The kind of fault each code is, for gpmx::error::code().
error_code error_code_of(errc c);

class pm_error : public error {
 public:
  pm_error(errc code, const std::string& what) : error(error_code_of(code), what), code_(code) {}
  // Hides error::code(): the pm layer's own, finer code.
  errc code() const { return code_; }

 private:
  errc code_;
};

}  // namespace gpmx::pm
