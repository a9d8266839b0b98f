#include "gpmx/support/scratch_dir.hpp"

#include <cstdio>
#include <random>
#include <string>
#include <system_error>

namespace gpmx {

scratch_dir::scratch_dir() : scratch_dir({}, "scratch") {}

scratch_dir::scratch_dir(const std::filesystem::path& parent, std::string_view stem) {
  std::random_device rd;
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "%x%x", rd(), rd());
  path_ = (parent.empty() ? std::filesystem::temp_directory_path() : parent) /
          ("gpmx-" + std::string(stem) + "-" + suffix);
  on_interrupt_ = std::make_unique<interrupt_cleanup::scratch_path>(path_);
  std::filesystem::create_directories(path_);
}

scratch_dir::~scratch_dir() {
  std::error_code ec;  // a destructor must not throw; what is left is in the temporary directory
  std::filesystem::remove_all(path_, ec);
}

}  // namespace gpmx
