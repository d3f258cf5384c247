# The dynamic symbols of libwarpkit.so are exactly the functions that
# include/warpkit.h declares: this reads the header at configure time and
# writes a linker version script,
#
#   WARPKIT_0 { global: wk_create; wk_destroy; ...; local: *; };
#
# so that a function added to the header is exported with no other change,
# and everything else (internal helpers, kernel stubs) stays hidden.
# tests/cpu/test_exports.sh checks the result against the header again, with
# the C compiler's own reading of it.
#
# warpkit_public_functions(HEADER OUT_VAR): the names of the functions
# declared at the start of a line of HEADER (return type on the same line or
# the line before), less static inline ones.
function(warpkit_public_functions header out_var)
  # One list element per line: characters that CMake lists treat specially
  # (";" and unbalanced "[" "]", as in a comment's "[a, b)") are blanked first.
  file(READ "${header}" text)
  string(REGEX REPLACE "[];[\\]" " " text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^(typedef|#|static)" OR line MATCHES "^[ \t/*]")
      continue()
    endif()
    if(line MATCHES "^([A-Za-z_][A-Za-z0-9_ \t*]*[ \t*])?(wk_[A-Za-z0-9_]+)[ \t]*\\(")
      list(APPEND names "${CMAKE_MATCH_2}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES names)
  list(SORT names)
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# warpkit_version_script(HEADER OUTPUT): writes the version script for HEADER
# and makes CMake configure again when the header changes.
function(warpkit_version_script header output)
  warpkit_public_functions("${header}" names)
  if(NOT names)
    message(FATAL_ERROR "no functions found in ${header}")
  endif()
  list(JOIN names ";\n    " body)
  file(CONFIGURE OUTPUT "${output}"
       CONTENT "/* Generated from ${header} by cmake/WarpkitExports.cmake. */\nWARPKIT_0 {\n  global:\n    ${body};\n  local:\n    *;\n};\n"
       @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${header}")
endfunction()
