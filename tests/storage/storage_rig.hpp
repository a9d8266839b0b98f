#pragma once
// The storage tests' set-up: backing files with a known pattern, devices
// over them, queue pairs and a controller per device, and an executor.
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/storage/block_device.hpp"
#include "gpmx/storage/controller.hpp"
#include "gpmx/storage/queue_memory.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace storage_test {
using namespace gpmx;
using namespace gpmx::storage;

// The 64-bit word at byte offset 8*i of file `file`.
inline std::uint64_t pattern(std::uint64_t file, std::uint64_t i) { return (file + 1) * 0x100000000ull + i; }

inline void write_pattern(const std::filesystem::path& p, std::uint64_t file, std::uint64_t bytes) {
  std::vector<std::uint64_t> words(bytes / 8);
  for (std::uint64_t i = 0; i < words.size(); ++i) words[i] = pattern(file, i);
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(words.data()), std::streamsize(bytes));
}

inline std::vector<std::uint64_t> read_words(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<std::uint64_t> words(std::filesystem::file_size(p) / 8);
  in.read(reinterpret_cast<char*>(words.data()), std::streamsize(words.size() * 8));
  return words;
}

struct rig_options {
  unsigned devices = 1;
  std::uint64_t device_bytes = 1 << 20;
  unsigned queues_per_device = 2;
  bool replicas = false;  // every device holds file 0's pattern
  queue_options queue{.depth = 16};
  bool deterministic = false;
  std::uint64_t seed = 1;
};

// Devices, their queues and controllers, attached to `ex` while it lives.
struct storage_rig {
  storage_rig(cpu::executor& ex, rig_options o) {
    for (unsigned d = 0; d < o.devices; ++d) {
      const auto path = dir / ("dev" + std::to_string(d));
      write_pattern(path, o.replicas ? 0 : d, o.device_bytes);
      devices.push_back(std::make_unique<block_device>(path, "dev" + std::to_string(d)));
      std::vector<queue_pair_view> mine;
      for (unsigned q = 0; q < o.queues_per_device; ++q) {
        queue_memory.push_back(std::make_unique<queue_pair_memory>(std::uint16_t(q + 1), o.queue));
        mine.push_back(queue_memory.back()->view());
        queues.push_back(mine.back());
      }
      controllers.push_back(std::make_unique<controller>(
          *devices.back(), mine, controller_options{.deterministic = o.deterministic, .seed = o.seed + d}));
      attachments.push_back(std::make_unique<cpu::agent_attachment>(ex.attach(*controllers.back())));
    }
  }
  std::vector<const block_device*> device_list() const {
    std::vector<const block_device*> out;
    for (const auto& d : devices) out.push_back(d.get());
    return out;
  }

  scratch_dir dir;
  std::vector<std::unique_ptr<block_device>> devices;
  std::vector<std::unique_ptr<queue_pair_memory>> queue_memory;
  std::vector<queue_pair_view> queues;  // device-major
  std::vector<std::unique_ptr<controller>> controllers;
  std::vector<std::unique_ptr<cpu::agent_attachment>> attachments;
};

inline cpu::executor_options parallel() { return {.workers = 2}; }
inline cpu::executor_options deterministic(std::uint64_t seed) {
  return {.policy = cpu::schedule::deterministic, .seed = seed};
}

}  // namespace storage_test
