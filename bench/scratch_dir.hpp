#pragma once
// A fresh directory for one benchmark's files, removed with everything in it
// when the benchmark leaves it.
#include <filesystem>
#include <random>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace gpmx::bench {

class scratch_dir {
 public:
  // Under `parent`, or the temporary directory when parent is empty.
  scratch_dir(const std::filesystem::path& parent, std::string_view stem) {
    std::random_device rd;
    path_ = (parent.empty() ? std::filesystem::temp_directory_path() : parent) /
            fmt::format("gpmx-{}-{:x}{:x}", stem, rd(), rd());
    std::filesystem::create_directories(path_);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace gpmx::bench
