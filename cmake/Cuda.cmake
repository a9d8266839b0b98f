# The CUDA build: on whenever nvcc is found (AUTO), required with ON.
set(GPMX_HAVE_CUDA OFF)
if(NOT GPMX_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # The GPUs of this machine when nvidia-smi names them (native code, no
      # JIT at the first launch); else sm_80's PTX alone, which every GPU
      # from sm_80 on compiles at its first launch. A machine without a GPU
      # only checks that the device code compiles, and machine code for an
      # architecture (ptxas) was about a third of each launcher file's
      # compile (17 of 45 s for the largest). -DCMAKE_CUDA_ARCHITECTURES=
      # "80;90" builds machine code for both.
      set(CMAKE_CUDA_ARCHITECTURES 80-virtual)
      find_program(GPMX_NVIDIA_SMI nvidia-smi)
      if(GPMX_NVIDIA_SMI)
        execute_process(COMMAND ${GPMX_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                        OUTPUT_VARIABLE gpmx_caps RESULT_VARIABLE gpmx_smi_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
        if(gpmx_smi_rc EQUAL 0 AND gpmx_caps MATCHES "^[0-9]+\\.[0-9]+")
          string(REPLACE "." "" gpmx_caps "${gpmx_caps}")
          string(REPLACE "\n" ";" gpmx_caps "${gpmx_caps}")
          list(REMOVE_DUPLICATES gpmx_caps)
          set(CMAKE_CUDA_ARCHITECTURES ${gpmx_caps})
        endif()
      endif()
    endif()
    enable_language(CUDA)
    include(${CMAKE_CURRENT_LIST_DIR}/gpmxCudaStandard.cmake)
    if(NOT PROJECT_IS_TOP_LEVEL)
      # The project that added gpmx compiles gpmx's headers with nvcc too.
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "${CMAKE_CUDA20_STANDARD_COMPILE_OPTION}" PARENT_SCOPE)
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "${CMAKE_CUDA20_EXTENSION_COMPILE_OPTION}" PARENT_SCOPE)
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(GPMX_HAVE_CUDA ON)
    message(STATUS "gpmx: CUDA build on (${CMAKE_CUDA_COMPILER}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(GPMX_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPMX_CUDA=ON but no CUDA compiler (nvcc) was found; set CUDACXX or put nvcc on PATH")
  else()
    message(STATUS "gpmx: nvcc not found, CUDA build off")
  endif()
endif()

# gpmx::cuda: what a translation unit that nvcc compiles needs to use gpmx's
# kernels and headers (gpmx's own CUDA objects and a user's alike).
#  - fmt 9's compile-time format checks: nvcc's front end cannot evaluate
#    them, and fmt turns its constexpr off under nvcc, which g++ then rejects
#    in C++20; g++ checks the same format strings in the CPU-only objects.
#  - C++20 (CMAKE_CUDA_STANDARD 20, set by the user: CMake 3.25 has no
#    cuda_std_20 feature for nvcc 13; gpmxCudaStandard.cmake gives the flag).
#  - --expt-relaxed-constexpr: the headers' constexpr helpers run on both sides.
#  - 20011, 20014: a GPMX_HD kernel instantiated with the cpu thread context
#    calls host functions; that instantiation only ever runs on the host.
function(gpmx_add_cuda_interface)
  add_library(gpmx_cuda INTERFACE)
  set_target_properties(gpmx_cuda PROPERTIES EXPORT_NAME cuda)
  target_compile_options(gpmx_cuda INTERFACE
    "$<$<COMPILE_LANGUAGE:CUDA>:-DFMT_CONSTEVAL=;-DFMT_USE_CONSTEXPR=1;--expt-relaxed-constexpr;-diag-suppress=20011,20014>")
  target_link_libraries(gpmx_cuda INTERFACE gpmx::exec CUDA::cudart)
  add_library(gpmx::cuda ALIAS gpmx_cuda)
endfunction()
