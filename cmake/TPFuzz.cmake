#===- TPFuzz.cmake - libFuzzer build of tp (TP_FUZZ) ----------------------===#
#
# Included from the top-level CMakeLists.txt before any target is defined.
# With -DTP_FUZZ=ON (Clang only; scripts/fuzz.sh configures build-fuzz/ with
# clang-22) every C/C++ file of tp is compiled with libFuzzer's coverage
# instrumentation plus AddressSanitizer and UndefinedBehaviorSanitizer, so
# that the parsers the fuzz targets reach are guided and checked, and the
# fuzz executables in fuzz/ link -fsanitize=fuzzer. MLIR/LLVM are Debian's
# GCC-built, uninstrumented libraries; fuzz/FuzzSupport.h explains the one
# ASan option this needs.
#
#===----------------------------------------------------------------------===#

option(TP_FUZZ "Build the libFuzzer targets in fuzz/ (Clang only)" OFF)

if(TP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TP_FUZZ needs Clang (libFuzzer), not "
      "${CMAKE_CXX_COMPILER_ID}: configure with CC=clang-22 CXX=clang++-22")
  endif()
  if(TP_SANITIZER)
    message(FATAL_ERROR "TP_FUZZ sets its own sanitizers; leave TP_SANITIZER "
                        "empty")
  endif()
  set(tp_fuzz_sanitizers -fsanitize=address,undefined
      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=fuzzer-no-link;${tp_fuzz_sanitizers};-gline-tables-only>")
  # Executables other than the fuzz targets (tp-opt, ...) still need the
  # sanitizer runtimes; fuzz/CMakeLists.txt adds -fsanitize=fuzzer.
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${tp_fuzz_sanitizers}>")
  message(STATUS "Fuzzing: libFuzzer + ASan + UBSan (fuzz/)")
endif()
