#pragma once
// A crash image (durable_log::files_at) put where the run's pool files are,
// so that recovery and verify read it as they would after a real crash.
#include <cstddef>
#include <vector>

#include "gpmx/sim/durable_log.hpp"

namespace gpmx::sim {

// Writes the images over the files: an existing image replaces its file's
// contents (synced); a path the crash would not have held is removed. Paths
// that no longer exist now (a temporary file renamed away) are left alone.
// Returns how many files were written and removed.
struct written_images {
  std::size_t written = 0, removed = 0;
};
written_images write_images(const std::vector<durable_log::file_image>& images);

}  // namespace gpmx::sim
