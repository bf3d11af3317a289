#===- TPInstall.cmake - tp as an installable CMake package ----------------===#
#
# Included from the top-level CMakeLists.txt before the libraries are
# defined. Every library calls tp_install_library(<target>) once, next to
# its definition: that gives the target its include directories (build and
# install interfaces, so it carries them to a consumer whichever way the
# consumer gets it), the TP::<target> alias, and puts it into the install
# and the exported TPTargets set. tp_install_package() (called at the end of
# the top-level CMakeLists.txt) installs the headers, the generated .inc
# files, the exported targets and TPConfig.cmake / TPConfigVersion.cmake.
# docs/embedding.md describes the package.
#
#===----------------------------------------------------------------------===#

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Where TPConfig.cmake and TPTargets.cmake go: <prefix>/lib/cmake/TP, one of
# the places find_package(TP CONFIG) looks under CMAKE_PREFIX_PATH.
set(TP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/TP CACHE STRING
  "Where to install TPConfig.cmake, relative to the install prefix")

# tp_install_library(<target>): makes <target> a library of the TP package.
function(tp_install_library target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "tp_install_library: no target ${target}")
  endif()
  # The headers: include/ of the sources (tp/, tp-c/) and of the build
  # (TableGen's .inc files), or include/ of the install prefix. An interface
  # library (TPMLIRHeaders) carries its own.
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} PUBLIC
      $<BUILD_INTERFACE:${TP_SOURCE_DIR}/include>
      $<BUILD_INTERFACE:${TP_BINARY_DIR}/include>
      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  endif()
  # The same name in a build that includes tp with add_subdirectory as in
  # one that finds the installed package.
  add_library(TP::${target} ALIAS ${target})
  install(TARGETS ${target} EXPORT TPTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set_property(GLOBAL APPEND PROPERTY TP_EXPORTED_TARGETS ${target})
endfunction()

# tp_install_package(): the headers, the export set and the package files.
function(tp_install_package)
  # Public headers, and the TableGen sources (a downstream dialect may use
  # tp's interfaces and attributes in its own .td files).
  install(DIRECTORY ${TP_SOURCE_DIR}/include/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "*.td")
  # TableGen's outputs (TPOps.h.inc, Passes.h.inc, ...), which the headers
  # include.
  install(DIRECTORY ${TP_BINARY_DIR}/include/
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.inc"
    PATTERN "CMakeFiles" EXCLUDE)

  install(EXPORT TPTargets
    NAMESPACE TP::
    DESTINATION ${TP_INSTALL_CMAKEDIR})

  # What TPConfig.cmake needs to know about this build.
  get_property(TP_EXPORTED_TARGETS GLOBAL PROPERTY TP_EXPORTED_TARGETS)
  set(TP_MLIR_DIR ${MLIR_DIR})
  configure_package_config_file(
    ${TP_SOURCE_DIR}/cmake/TPConfig.cmake.in
    ${TP_BINARY_DIR}/lib/cmake/TP/TPConfig.cmake
    INSTALL_DESTINATION ${TP_INSTALL_CMAKEDIR})
  # 0.x: a new minor version may change the API, so only the same major and
  # minor version satisfies a request (0.1.3 for 0.1; not 0.2 for 0.1).
  write_basic_package_version_file(
    ${TP_BINARY_DIR}/lib/cmake/TP/TPConfigVersion.cmake
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY SameMinorVersion)
  install(FILES
    ${TP_BINARY_DIR}/lib/cmake/TP/TPConfig.cmake
    ${TP_BINARY_DIR}/lib/cmake/TP/TPConfigVersion.cmake
    ${TP_SOURCE_DIR}/cmake/TPStaticLLVM.cmake
    DESTINATION ${TP_INSTALL_CMAKEDIR})
endfunction()
