# The CUDA build: on whenever nvcc is found (AUTO), required with ON.
set(GPMX_HAVE_CUDA OFF)
if(NOT GPMX_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 predates nvcc 13 and does not know its C++20 flag.
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    # nvcc's front end cannot evaluate fmt 9's compile-time format checks, and
    # fmt turns its constexpr off under nvcc, which g++ then rejects in C++20;
    # g++ checks the same format strings in the CPU-only objects.
    add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-DFMT_CONSTEVAL=;-DFMT_USE_CONSTEXPR=1>")
    set(GPMX_HAVE_CUDA ON)
    message(STATUS "gpmx: CUDA build on (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(GPMX_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPMX_CUDA=ON but no CUDA compiler (nvcc) was found; set CUDACXX or put nvcc on PATH")
  else()
    message(STATUS "gpmx: nvcc not found, CUDA build off")
  endif()
endif()
