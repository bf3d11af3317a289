#===- TPSanitizers.cmake - Build every tp target with sanitizers ----------===#
#
# Included from the top-level CMakeLists.txt before any target is defined.
# TP_SANITIZER is a list of -fsanitize= names ("," or ";" separated), e.g.
#
#   -DTP_SANITIZER=thread               ThreadSanitizer
#   -DTP_SANITIZER="address;undefined"  AddressSanitizer (with LeakSanitizer)
#                                       and UndefinedBehaviorSanitizer
#
# The flags go on every C and C++ compile and link of this project (CUDA
# sources are left alone). MLIR/LLVM, OpenBLAS and MPI are the distribution's
# uninstrumented libraries; scripts/sanitize.sh runs the tests and lists the
# suppressions (scripts/sanitizers/) this needs.
#
#===----------------------------------------------------------------------===#

set(TP_SANITIZER "" CACHE STRING
  "Sanitizers for every tp target: empty (none), thread, or address;undefined")

if(TP_SANITIZER)
  string(REPLACE "," ";" tp_sanitizers "${TP_SANITIZER}")
  if("thread" IN_LIST tp_sanitizers AND
     ("address" IN_LIST tp_sanitizers OR "leak" IN_LIST tp_sanitizers))
    message(FATAL_ERROR "TP_SANITIZER: thread cannot be combined with "
                        "address or leak")
  endif()
  string(REPLACE ";" "," tp_sanitizer_list "${tp_sanitizers}")
  set(tp_sanitizer_flags -fsanitize=${tp_sanitizer_list}
      -fno-omit-frame-pointer)
  # A UBSan error fails the process instead of printing and going on.
  if("undefined" IN_LIST tp_sanitizers)
    list(APPEND tp_sanitizer_flags -fno-sanitize-recover=all)
  endif()
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:${tp_sanitizer_flags}>")
  # llvm/Support/Compiler.h sets LLVM_ADDRESS_SANITIZER_BUILD ("whether LLVM
  # itself is built with AddressSanitizer") from __SANITIZE_ADDRESS__, and
  # then BumpPtrAllocator & co. poison their slabs in inline code. LLVM/MLIR
  # here are not instrumented: their copies of those inline functions never
  # unpoison, and whichever copy the linker keeps mixes the two, so every
  # MLIRContext reports use-after-poison. tp's view of LLVM must match how
  # LLVM was built. (Clang's __has_feature(address_sanitizer) cannot be
  # turned off: use GCC, as scripts/sanitize.sh does.)
  if("address" IN_LIST tp_sanitizers)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-U__SANITIZE_ADDRESS__>")
    else()
      message(WARNING "TP_SANITIZER=address with ${CMAKE_CXX_COMPILER_ID}: "
        "LLVM's headers will poison memory the uninstrumented LLVM libraries "
        "never unpoison (false use-after-poison reports); use GCC")
    endif()
  endif()
  add_link_options("$<$<LINK_LANGUAGE:C,CXX>:${tp_sanitizer_flags}>")
  message(STATUS "Sanitizers: ${tp_sanitizer_flags}")
endif()
