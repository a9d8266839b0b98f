# `cmake --install`: the libraries as components of one package, their public
# headers, the gpmx program, a CMake package (find_package(gpmx COMPONENTS
# ...)) and a pkg-config file. A component's targets are gpmx::<component>.
include(CMakePackageConfigHelpers)

# The components in an order where each comes after what it needs; what
# each needs is written once, here, into the package file.
set(gpmx_needs_support "")
set(gpmx_needs_exec support)
set(gpmx_needs_gpu exec)
set(gpmx_needs_trace exec)
set(gpmx_needs_sim exec)
set(gpmx_needs_litmus exec)
set(gpmx_needs_pm exec gpu)
set(gpmx_needs_check trace)
set(gpmx_needs_scale check)
set(gpmx_needs_storage exec)
set(gpmx_needs_stm pm)
set(gpmx_needs_cuda exec)
set(GPMX_COMPONENTS support exec gpu trace)
if(TARGET gpmx_sim)
  list(APPEND GPMX_COMPONENTS sim litmus)
endif()
if(GPMX_PM)
  list(APPEND GPMX_COMPONENTS pm stm)
endif()
list(APPEND GPMX_COMPONENTS check scale storage)
if(GPMX_HAVE_CUDA)
  list(APPEND GPMX_COMPONENTS cuda)
endif()

set(gpmx_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gpmx)
foreach(component IN LISTS GPMX_COMPONENTS)
  set(target gpmx_${component})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${component})
  install(TARGETS ${target} EXPORT gpmx-${component}-targets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT gpmx-${component}-targets NAMESPACE gpmx:: DESTINATION ${gpmx_cmake_dir})
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpmx/${component})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpmx/${component}
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpmx)
  endif()
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/include/gpmx/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpmx)

set(GPMX_COMPONENT_NEEDS "")
foreach(component IN LISTS GPMX_COMPONENTS)
  string(APPEND GPMX_COMPONENT_NEEDS "set(_gpmx_needs_${component} ${gpmx_needs_${component}})\n")
endforeach()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gpmxConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/gpmxConfig.cmake
  INSTALL_DESTINATION ${gpmx_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/gpmxConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/gpmxConfig.cmake
              ${PROJECT_BINARY_DIR}/package/gpmxConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/gpmxCudaStandard.cmake
        DESTINATION ${gpmx_cmake_dir})

# pkg-config: every library, for users of other build systems.
set(gpmx_pc_libs)
foreach(component IN ITEMS storage scale check stm pm litmus sim trace gpu exec support)
  if(component IN_LIST GPMX_COMPONENTS)
    string(APPEND gpmx_pc_libs " -lgpmx_${component}")
  endif()
endforeach()
set(gpmx_pc_requires "fmt liburing")
if(TARGET gpmx_sim)
  string(APPEND gpmx_pc_requires " nlohmann_json")
endif()
set(gpmx_pc_deps "-lboost_context")
if(GPMX_PM)
  string(APPEND gpmx_pc_requires " libpmem")
endif()
if(GPMX_HAVE_CUDA)
  string(APPEND gpmx_pc_deps " -L${CUDAToolkit_LIBRARY_DIR} -lcudart")
endif()
if(GPMX_HAVE_MPI)
  foreach(lib IN LISTS MPI_CXX_LIBRARIES)
    string(APPEND gpmx_pc_deps " ${lib}")
  endforeach()
endif()
# Relocatable: the prefix is found from where the .pc file lies.
string(REGEX REPLACE "[^/]+" ".." gpmx_pc_up "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
configure_file(${CMAKE_CURRENT_LIST_DIR}/gpmx.pc.in ${PROJECT_BINARY_DIR}/package/gpmx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/gpmx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

if(TARGET gpmx)
  install(TARGETS gpmx RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Preloaded by gpmx check into --verify commands to track their reads.
  if(TARGET gpmx_read_preload)
    install(TARGETS gpmx_read_preload LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
  # gpmx report has the script built in; this copy is for running it alone.
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/report/gpmx_report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/gpmx)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gpmx)
