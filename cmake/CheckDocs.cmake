# Fails when docs/generated differs from what TableGen produces now.
# Usage: cmake -DGENERATED=<build>/docs -DCOMMITTED=<src>/docs/generated -P CheckDocs.cmake
file(GLOB_RECURSE files RELATIVE ${GENERATED} ${GENERATED}/*.md)
if(NOT files)
  message(FATAL_ERROR "no generated docs under ${GENERATED}; build tp-doc-gen")
endif()
foreach(f ${files})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                  ${GENERATED}/${f} ${COMMITTED}/${f} RESULT_VARIABLE diff)
  if(diff)
    message(FATAL_ERROR "docs/generated/${f} is stale: run `ninja -C build tp-doc`")
  endif()
endforeach()
message(STATUS "docs/generated is current (${files})")
