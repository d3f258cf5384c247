# The version lives in two places: project(VERSION) here and the
# WARPKIT_VERSION_* macros in include/warpkit.h, which C users read without
# CMake. Configuring stops when they differ, so they cannot drift apart.
file(STRINGS "${PROJECT_SOURCE_DIR}/include/warpkit.h" _wk_version_lines
     REGEX "^#define WARPKIT_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+")
set(_wk_header_version "")
foreach(_part MAJOR MINOR PATCH)
  set(_wk_value "")
  foreach(_line IN LISTS _wk_version_lines)
    if(_line MATCHES "^#define WARPKIT_VERSION_${_part} +([0-9]+)")
      set(_wk_value "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  if(_wk_value STREQUAL "")
    message(FATAL_ERROR "include/warpkit.h does not define WARPKIT_VERSION_${_part}")
  endif()
  list(APPEND _wk_header_version "${_wk_value}")
endforeach()
list(JOIN _wk_header_version "." _wk_header_version)
if(NOT _wk_header_version VERSION_EQUAL PROJECT_VERSION)
  message(FATAL_ERROR "include/warpkit.h says version ${_wk_header_version}, project() says "
                      "${PROJECT_VERSION}: change both together")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/include/warpkit.h")
unset(_wk_version_lines)
unset(_wk_header_version)
unset(_wk_value)
