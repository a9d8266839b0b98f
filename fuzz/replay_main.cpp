// Replays a fuzz target's inputs without libFuzzer: the same target source
// linked with this main, in any tree (GCC, the sanitizer trees), so the
// default suite reads every committed seed through the target's checks.
//   fuzz_<target>_replay PATH...   (files, or directories read file by file)
// Exits 1 when no input was found: an empty corpus is a broken test, not a
// passing one. A failed check aborts or throws, as under libFuzzer.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// Only some targets set up state once; weak, so the others link without it.
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputs_of(const fs::path& arg) {
  std::vector<fs::path> out;
  if (fs::is_directory(arg)) {
    for (const auto& e : fs::directory_iterator(arg))
      if (e.is_regular_file()) out.push_back(e.path());
    std::sort(out.begin(), out.end());
  } else if (fs::is_regular_file(arg)) {
    out.push_back(arg);
  }
  return out;
}

std::vector<std::uint8_t> read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s PATH... (input files or corpus directories)\n", argv[0]);
    return 2;
  }
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    const auto files = inputs_of(argv[i]);
    if (files.empty()) std::fprintf(stderr, "replay: no input file in '%s'\n", argv[i]);
    for (const fs::path& f : files) {
      const std::vector<std::uint8_t> bytes = read_all(f);
      std::printf("replay: %s (%zu bytes)\n", f.filename().c_str(), bytes.size());
      std::fflush(stdout);
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++replayed;
    }
  }
  std::printf("replay: %zu inputs, no failure\n", replayed);
  return replayed == 0 ? 1 : 0;
}
