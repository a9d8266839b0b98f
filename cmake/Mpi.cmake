# The MPI build (gpmx check --mpi, gpmx bench check --mpi; docs/scale.md):
# on whenever an MPI library is found (AUTO), required with ON. Without it
# gpmx builds and runs as before and --mpi says how to get it.
set(GPMX_HAVE_MPI OFF)
if(NOT GPMX_MPI MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "GPMX_MPI=${GPMX_MPI}: use AUTO, ON or OFF")
endif()
if(NOT GPMX_MPI STREQUAL "OFF")
  # gpmx is C++ only: the C interface through MPI's C++ component, without
  # the deprecated C++ bindings.
  set(MPI_CXX_SKIP_MPICXX TRUE)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(GPMX_HAVE_MPI ON)
    message(STATUS "gpmx: MPI build on (MPI ${MPI_CXX_VERSION})")
  elseif(GPMX_MPI STREQUAL "ON")
    message(FATAL_ERROR "GPMX_MPI=ON but no MPI library was found; on Debian: apt-get install libopenmpi-dev openmpi-bin")
  else()
    message(STATUS "gpmx: no MPI library found, MPI build off")
  endif()
endif()
