#===- CheckMLIRFree.cmake - a library that must not need MLIR -------------===#
#
# cmake -DLIB=<archive> -DNM=<nm> -P CheckMLIRFree.cmake
#
# Fails when the archive has an undefined symbol of MLIR or LLVM's IR
# (anything in namespace mlir:: outside tp's runtime, executor and JSON
# library, TPJSON, which is plain C++). An LTO
# build links a stray reference away when the code is unused, so the link of
# TPInterpreterTests alone does not catch it; an -O1 sanitizer build does.
#
#===----------------------------------------------------------------------===#
execute_process(COMMAND ${NM} -C -u ${LIB}
  OUTPUT_VARIABLE undefined RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -C -u ${LIB} failed (${rc}): ${err}")
endif()
string(REPLACE "\n" ";" lines "${undefined}")
set(bad "")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line MATCHES "^U mlir::" AND NOT line MATCHES "^U mlir::tp::(exec|runtime|json)::")
    list(APPEND bad "${line}")
  endif()
endforeach()
if(bad)
  list(REMOVE_DUPLICATES bad)
  list(JOIN bad "\n  " shown)
  message(FATAL_ERROR "${LIB} must not need MLIR, but references:\n  ${shown}")
endif()
message(STATUS "${LIB}: no MLIR symbol referenced")
