#pragma once
// A fresh directory for one test's or one benchmark's files, removed with
// everything in it when the object goes, or on an interrupt
// (interrupt_cleanup.hpp).
#include <filesystem>
#include <memory>
#include <string_view>

#include "gpmx/support/interrupt_cleanup.hpp"

namespace gpmx {

class scratch_dir {
 public:
  // gpmx-scratch-<random hex> in the system's temporary directory.
  scratch_dir();
  // gpmx-<stem>-<random hex> under `parent`, or in the system's temporary
  // directory when parent is empty.
  scratch_dir(const std::filesystem::path& parent, std::string_view stem);
  ~scratch_dir();
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
  std::unique_ptr<interrupt_cleanup::scratch_path> on_interrupt_;
};

}  // namespace gpmx
