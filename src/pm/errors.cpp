#include "gpmx/pm/errors.hpp"

namespace gpmx::pm {

const char* to_string(errc c) {
  switch (c) {
    case errc::io: return "io";
    case errc::already_exists: return "already_exists";
    case errc::not_a_pool: return "not_a_pool";
    case errc::wrong_version: return "wrong_version";
    case errc::truncated: return "truncated";
    case errc::checksum_mismatch: return "checksum_mismatch";
    case errc::name_too_long: return "name_too_long";
    case errc::name_empty: return "name_empty";
    case errc::duplicate_name: return "duplicate_name";
    case errc::missing_region: return "missing_region";
    case errc::bad_size: return "bad_size";
    case errc::table_full: return "table_full";
    case errc::out_of_space: return "out_of_space";
    case errc::bad_argument: return "bad_argument";
    case errc::log_entry_too_large: return "log_entry_too_large";
    case errc::log_full: return "log_full";
    case errc::log_empty: return "log_empty";
    case errc::log_geometry: return "log_geometry";
    case errc::checkpoint_full: return "checkpoint_full";
    case errc::no_consistent_copy: return "no_consistent_copy";
    case errc::registration_mismatch: return "registration_mismatch";
    case errc::corrupt_value: return "corrupt_value";
  }
  return "?";
}

error_code error_code_of(errc c) {
  switch (c) {
    case errc::io:
    case errc::already_exists: return error_code::io;
    case errc::not_a_pool:
    case errc::wrong_version:
    case errc::truncated:
    case errc::checksum_mismatch:
    case errc::corrupt_value: return error_code::corrupt_data;
    case errc::table_full:
    case errc::out_of_space:
    case errc::log_entry_too_large:
    case errc::log_full:
    case errc::checkpoint_full: return error_code::capacity;
    case errc::missing_region:
    case errc::log_empty:
    case errc::no_consistent_copy: return error_code::not_found;
    case errc::name_too_long:
    case errc::name_empty:
    case errc::duplicate_name:
    case errc::bad_size:
    case errc::bad_argument:
    case errc::log_geometry:
    case errc::registration_mismatch: return error_code::usage;
  }
  return error_code::usage;
}

}  // namespace gpmx::pm
