# GPMX_FUZZ: a build tree of libFuzzer targets (fuzz/). Everything is compiled
# with libFuzzer's coverage instrumentation and AddressSanitizer; only the
# targets link libFuzzer's main. libFuzzer comes with clang, so the option is
# refused with any other compiler (the default GCC build never needs clang).
if(GPMX_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "GPMX_FUZZ needs clang (e.g. -DCMAKE_CXX_COMPILER=clang++-14), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(NOT GPMX_SANITIZER STREQUAL "address")
    message(FATAL_ERROR "GPMX_FUZZ builds with -DGPMX_SANITIZER=address, so the fuzzers see memory errors")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
