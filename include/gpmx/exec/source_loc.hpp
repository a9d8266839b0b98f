#pragma once
// Where in the kernel source an operation was written. Persistency
// operations and PM views take one as a defaulted last parameter, so the
// trace mode can name the line of every event without changing call sites.
#include <cstdint>
#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
#endif

namespace gpmx {

#if defined(__cpp_lib_source_location)
using source_loc = std::source_location;
#else
// clang 14 with libstdc++ has no std::source_location (it needs clang 15's
// __builtin_source_location); the fuzz build uses clang 14. The same
// interface from the builtins every supported compiler has.
class source_loc {
 public:
  static constexpr source_loc current(const char* file = __builtin_FILE(), std::uint_least32_t line = __builtin_LINE(),
                                      const char* function = __builtin_FUNCTION()) noexcept {
    source_loc l;
    l.file_ = file;
    l.line_ = line;
    l.function_ = function;
    return l;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return 0; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
};
#endif

}  // namespace gpmx
