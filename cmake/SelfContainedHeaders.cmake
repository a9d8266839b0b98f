# gpmx_self_contained(TARGET EXTENSION ROOT HEADER...): an object library of
# one generated source per header (relative to ROOT, the include root),
# each including only that header, twice, so a header that leans on its
# includer, or lacks an include guard, fails to build. Used for the source
# tree (tests/headers) and for an installed prefix (tests/install/headers).
function(gpmx_self_contained target extension root)
  set(sources)
  foreach(header IN LISTS ARGN)
    string(REGEX REPLACE "[/.]" "_" stem "${header}")
    set(source ${CMAKE_CURRENT_BINARY_DIR}/self_contained/${stem}.${extension})
    file(CONFIGURE OUTPUT ${source}
         CONTENT "// Generated: ${header} (under ${root}) must compile on its own.\n#include <${header}>\n#include <${header}>\n")
    list(APPEND sources ${source})
  endforeach()
  add_library(${target} OBJECT ${sources})
endfunction()
