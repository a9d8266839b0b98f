# Warning flags for every gpmx target; -Werror when GPMX_WERROR is on (CI).
# -Wnull-dereference is left out of sanitizer builds: their instrumentation
# makes it report paths inside libstdc++ that cannot occur; and out of
# targets with the GPMX_NO_NULL_DEREFERENCE_WARNING property (the gpmx
# tool: tools/gpmx/CMakeLists.txt says why).
add_library(gpmx_warnings INTERFACE)
target_compile_options(gpmx_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
    -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<NOT:$<BOOL:${GPMX_SANITIZER}>>,$<NOT:$<BOOL:$<TARGET_PROPERTY:GPMX_NO_NULL_DEREFERENCE_WARNING>>>>:-Wnull-dereference>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${GPMX_WERROR}>>:-Werror>
  $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${GPMX_WERROR}>>:--Werror=all-warnings>)
