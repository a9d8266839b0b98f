# CMake 3.25 predates nvcc 13 and does not know its C++20 flag; gpmx's
# headers need C++20 in device code too. Included by gpmx's own build and by
# the installed package's cuda component, after CUDA is enabled.
if(CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()
