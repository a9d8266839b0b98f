# One sanitizer per build tree; the executor annotates its fiber switches for
# address and thread so the tools follow the kernel threads' stacks.
if(GPMX_SANITIZER)
  if(NOT GPMX_SANITIZER MATCHES "^(address|undefined|thread)$")
    message(FATAL_ERROR "GPMX_SANITIZER must be address, undefined or thread, not '${GPMX_SANITIZER}'")
  endif()
  set(_gpmx_san_flags -fsanitize=${GPMX_SANITIZER} -fno-omit-frame-pointer)
  if(GPMX_SANITIZER STREQUAL "undefined")
    list(APPEND _gpmx_san_flags -fno-sanitize-recover=all)
  endif()
  add_compile_options(${_gpmx_san_flags})
  add_link_options(-fsanitize=${GPMX_SANITIZER})
  add_compile_definitions(GPMX_SANITIZER_${GPMX_SANITIZER}=1)
endif()
