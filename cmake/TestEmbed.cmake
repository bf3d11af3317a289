#===- TestEmbed.cmake - the installed package, used from outside ----------===#
#
# The ctest test tp-embed-install runs this script (cmake -P): it installs
# tp's build into WORK/prefix, checks that the install is self-contained,
# configures examples/embed against it with nothing but CMAKE_PREFIX_PATH
# (and the generator and compiler), builds it, and runs it on 2 and 3 ranks,
# and once with --corrupt, which must fail. Arguments (-D):
#
#   TP_BUILD, TP_SOURCE   tp's build and source trees
#   VERSION               tp's version (the project's)
#   WORK                  a scratch directory (emptied first)
#   GENERATOR, MAKE_PROGRAM, CXX_COMPILER, C_COMPILER, COMPILER_LAUNCHER
#   CXX_FLAGS             extra compile and link flags (a sanitizer build's)
#
#===----------------------------------------------------------------------===#

foreach(arg TP_BUILD TP_SOURCE VERSION WORK GENERATOR CXX_COMPILER
    C_COMPILER)
  if(NOT DEFINED ${arg} OR "${${arg}}" STREQUAL "")
    message(FATAL_ERROR "TestEmbed.cmake needs -D${arg}=...")
  endif()
endforeach()

# Runs a command; fails the test with its output unless it exits with
# EXPECT (default 0).
function(run what)
  cmake_parse_arguments(ARG "" "EXPECT" "COMMAND" ${ARGN})
  if(NOT DEFINED ARG_EXPECT)
    set(ARG_EXPECT 0)
  endif()
  execute_process(COMMAND ${ARG_COMMAND}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc STREQUAL ARG_EXPECT)
    message(FATAL_ERROR "${what}: exit ${rc}, expected ${ARG_EXPECT}:\n"
      "${ARG_COMMAND}\n${out}")
  endif()
  message(STATUS "${what}: ok")
  set(output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK}/prefix)
set(consumer ${WORK}/embed)
file(REMOVE_RECURSE ${WORK})

run("install" COMMAND ${CMAKE_COMMAND} --install ${TP_BUILD}
  --prefix ${prefix})
foreach(file lib/cmake/TP/TPConfig.cmake lib/cmake/TP/TPConfigVersion.cmake
    lib/cmake/TP/TPTargets.cmake include/tp/Launch/Launcher.h
    include/tp/Dialect/TP/IR/TPOps.h.inc
    include/tp/Dialect/TP/Transforms/Passes.h.inc bin/tp-opt bin/tp-run
    bin/tp-model)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install has no ${file}")
  endif()
endforeach()

# Self-contained: nothing installed names tp's source or build tree.
file(GLOB package_files ${prefix}/lib/cmake/TP/*.cmake)
foreach(file IN LISTS package_files)
  file(READ ${file} text)
  foreach(tree ${TP_SOURCE} ${TP_BUILD})
    string(FIND "${text}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names ${tree}")
    endif()
  endforeach()
endforeach()
message(STATUS "the package files name neither ${TP_SOURCE} nor ${TP_BUILD}")

# The version file: this minor version is accepted; the next one, the next
# major and (SameMinorVersion, not SameMajorVersion) an older minor of this
# major are not.
string(REGEX MATCH "^([0-9]+)\\.([0-9]+)" _ "${VERSION}")
set(major ${CMAKE_MATCH_1})
set(minor ${CMAKE_MATCH_2})
math(EXPR next_minor "${minor} + 1")
math(EXPR next_major "${major} + 1")
set(refused ${major}.${next_minor} ${next_major}.0)
if(minor GREATER 0)
  math(EXPR previous_minor "${minor} - 1")
  list(APPEND refused ${major}.${previous_minor})
endif()
file(WRITE ${WORK}/version/CMakeLists.txt "
cmake_minimum_required(VERSION 3.20)
project(tp-version LANGUAGES C CXX)
find_package(TP ${major}.${minor} CONFIG REQUIRED)
if(NOT TP_VERSION STREQUAL \"${VERSION}\" OR NOT TARGET TP::TPLaunch)
  message(FATAL_ERROR \"found TP \${TP_VERSION} in \${TP_DIR}\")
endif()
foreach(wanted ${refused})
  find_package(TP \${wanted} CONFIG QUIET)
  if(TP_FOUND)
    message(FATAL_ERROR \"TP ${VERSION} accepted for \${wanted}\")
  endif()
endforeach()
")
# What every configure below is given: the prefix, and how to build.
set(toolchain -G ${GENERATOR} -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_C_COMPILER=${C_COMPILER})
if(MAKE_PROGRAM)
  list(APPEND toolchain -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
run("find_package(TP ${major}.${minor}), not ${refused}"
  COMMAND ${CMAKE_COMMAND} ${toolchain} -S ${WORK}/version
  -B ${WORK}/version/build)

set(configure ${CMAKE_COMMAND} ${toolchain}
  -S ${TP_SOURCE}/examples/embed -B ${consumer}
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
if(COMPILER_LAUNCHER)
  list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}
    -DCMAKE_C_COMPILER_LAUNCHER=${COMPILER_LAUNCHER})
endif()
if(CXX_FLAGS)
  list(APPEND configure "-DCMAKE_CXX_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_C_FLAGS=${CXX_FLAGS}"
    "-DCMAKE_EXE_LINKER_FLAGS=${CXX_FLAGS}")
endif()
run("configure examples/embed" COMMAND ${configure})
string(FIND "${output}" "Found TP " at)
if(at EQUAL -1)
  message(FATAL_ERROR "examples/embed did not find the package:\n${output}")
endif()

# The consumer compiles against the install only.
file(READ ${consumer}/compile_commands.json commands)
foreach(dir ${TP_SOURCE}/include ${TP_BUILD}/include)
  string(FIND "${commands}" "${dir}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "examples/embed compiles with ${dir}:\n${commands}")
  endif()
endforeach()

run("build examples/embed" COMMAND ${CMAKE_COMMAND} --build ${consumer})

foreach(ranks 2 3)
  run("tp-embed --np ${ranks}" COMMAND ${consumer}/tp-embed --np ${ranks})
  string(FIND "${output}" "${ranks} ranks match one rank" at)
  # The run's report, in the embedder's name, with the pair's one all_reduce.
  string(FIND "${output}" "tp-embed: ${ranks} rank(s), mesh ${ranks}," run_at)
  string(FIND "${output}" "collectives per rank: all_reduce=1\n" comm_at)
  if(at EQUAL -1 OR run_at EQUAL -1 OR comm_at EQUAL -1)
    message(FATAL_ERROR "tp-embed --np ${ranks} printed:\n${output}")
  endif()
  message(STATUS "${output}")
endforeach()
# The C program links TP::TPCAPI alone and checks N ranks against one.
foreach(ranks 2 3)
  run("tp-embed-c ${ranks}" COMMAND ${consumer}/tp-embed-c ${ranks})
  string(FIND "${output}" "${ranks} ranks vs 1: 1 all_reduce" at)
  string(FIND "${output}" "\"all_reduce\": 1" report_at)
  if(at EQUAL -1 OR report_at EQUAL -1)
    message(FATAL_ERROR "tp-embed-c ${ranks} printed:\n${output}")
  endif()
  message(STATUS "${output}")
endforeach()
# The check can fail: one wrong element is a mismatch.
run("tp-embed --np 2 --corrupt" EXPECT 1
  COMMAND ${consumer}/tp-embed --np 2 --corrupt)
string(FIND "${output}" "2 ranks differ from one rank" at)
if(at EQUAL -1)
  message(FATAL_ERROR "tp-embed --corrupt printed:\n${output}")
endif()
