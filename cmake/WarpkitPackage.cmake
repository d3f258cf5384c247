# What `cmake --install` gives C and CMake users beside the libraries and
# headers (installed in src/CMakeLists.txt with EXPORT warpkitTargets):
#   ${CMAKE_INSTALL_LIBDIR}/cmake/warpkit/  warpkitConfig.cmake,
#       warpkitConfigVersion.cmake, warpkitTargets*.cmake: find_package(warpkit)
#       gives warpkit::warpkit (shared) and warpkit::warpkit_static;
#   ${CMAKE_INSTALL_LIBDIR}/pkgconfig/warpkit.pc: pkg-config --cflags --libs warpkit.
include(CMakePackageConfigHelpers)

set(WARPKIT_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/warpkit")
install(EXPORT warpkitTargets
  NAMESPACE warpkit::
  FILE warpkitTargets.cmake
  DESTINATION "${WARPKIT_CMAKE_DIR}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/warpkitConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/warpkitConfig.cmake"
  INSTALL_DESTINATION "${WARPKIT_CMAKE_DIR}")
# 0.x: a new minor version may change the API, so only the same minor matches.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/warpkitConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/warpkitConfig.cmake"
  "${PROJECT_BINARY_DIR}/warpkitConfigVersion.cmake"
  DESTINATION "${WARPKIT_CMAKE_DIR}")

# pkg-config: the prefix is relative to the .pc file (../.. for lib/pkgconfig).
set(_wk_pc_dir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  # Absolute install directories: the .pc file names them as they are.
  set(WARPKIT_PC_RELATIVE_PREFIX "")
  set(WARPKIT_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(WARPKIT_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH WARPKIT_PC_RELATIVE_PREFIX "/p/${_wk_pc_dir}" "/p")
  set(WARPKIT_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(WARPKIT_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
# The directory of the libcudart that warpkit was built against.
get_target_property(_wk_cudart CUDA::cudart IMPORTED_LOCATION)
if(NOT _wk_cudart)
  set(_wk_cudart "${CUDA_cudart_LIBRARY}")
endif()
get_filename_component(WARPKIT_PC_CUDA_LIBDIR "${_wk_cudart}" DIRECTORY)
list(GET CUDAToolkit_INCLUDE_DIRS 0 WARPKIT_PC_CUDA_INCLUDEDIR)
# What libwarpkit.a needs beyond libcudart when linked statically (its
# CUDA objects are C++): pkg-config --static --libs warpkit.
set(WARPKIT_PC_LIBS_PRIVATE "-lstdc++ -lm")
configure_file("${PROJECT_SOURCE_DIR}/cmake/warpkit.pc.in" "${PROJECT_BINARY_DIR}/warpkit.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/warpkit.pc" DESTINATION "${_wk_pc_dir}")
# warpkit_nccl.pc beside it, for the distributed calls (built when NCCL was found).
if(NCCL_FOUND)
  get_filename_component(WARPKIT_PC_NCCL_LIBDIR "${NCCL_LIBRARY}" DIRECTORY)
  set(WARPKIT_PC_NCCL_INCLUDEDIR "${NCCL_INCLUDE_DIR}")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/warpkit_nccl.pc.in" "${PROJECT_BINARY_DIR}/warpkit_nccl.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/warpkit_nccl.pc" DESTINATION "${_wk_pc_dir}")
endif()
unset(_wk_pc_dir)
unset(_wk_cudart)
