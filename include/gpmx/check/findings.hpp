#pragma once
// What checking a share of the images found, in a form that travels
// between processes and merges: every process that makes the same images
// (same trace, same options) gives them the same indices, so shares checked
// apart merge into the report one process checking them all would give
// (docs/check.md, "Checking across processes"; docs/scale.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gpmx/check/check_run.hpp"

namespace gpmx::check {

// One cause: the failure as the process that found it saw it, with its
// smallest image.
struct cause_findings {
  std::string key;                       // the file:line pairs that make two failures one cause
  std::uint64_t first_image = 0;         // index of its first failing image as made
  std::uint64_t smallest_image = 0;      // index of its smallest image
  check_failure failure;                 // lost_count and position of the smallest image
  std::vector<std::uint64_t> smallest;   // the smallest image's stores (store_set words)
};

struct findings {
  // What the process made, which must agree among shares of one check.
  std::uint64_t events = 0;
  std::size_t granule_stores = 0;
  std::size_t images_made = 0;
  // What its share checked and found.
  std::size_t images_checked = 0;
  std::size_t failed_images = 0;
  std::vector<cause_findings> causes;
};

std::string encode_findings(const findings& f);
// `what` names the sender in errors ("findings from rank 2").
findings decode_findings(const std::string& bytes, const std::string& what);

// The shares' findings as one: failed images summed, causes joined by key,
// each cause's first image the earliest and its smallest image the least by
// (lost stores, crash position, index). Causes come out in the order of
// their first images. Throws check_error when two shares did not make the
// same images (different traces or options).
findings merge_findings(const std::vector<findings>& parts);

}  // namespace gpmx::check
