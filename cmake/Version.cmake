# gpmx/version.hpp from project()'s version, and the include directories every
# gpmx library publishes: the source tree and the generated headers while
# building, the installed include directory after `cmake --install`.
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in
               ${PROJECT_BINARY_DIR}/generated/include/gpmx/version.hpp @ONLY)
set(GPMX_INCLUDE_DIRS
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
