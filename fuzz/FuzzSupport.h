//===- FuzzSupport.h - shared pieces of the tp fuzz targets -----*- C++ -*-===//
//
// Included by exactly one file of each fuzz executable (the target itself):
// the sanitizer defaults every target needs.
//
//===----------------------------------------------------------------------===//

#ifndef TP_FUZZ_FUZZSUPPORT_H
#define TP_FUZZ_FUZZSUPPORT_H

/// ASan defaults, overridable with ASAN_OPTIONS. Clang defines
/// __has_feature(address_sanitizer) in tp's files, so llvm/Support/Compiler.h
/// sets LLVM_ADDRESS_SANITIZER_BUILD there and the inline BumpPtrAllocator
/// code compiled into tp poisons memory that the uninstrumented Debian
/// LLVM/MLIR libraries never unpoison (the same bug cmake/TPSanitizers.cmake
/// avoids with GCC): allow_user_poisoning=0 makes manual poisoning a no-op,
/// and ASan still checks every heap, stack and global access.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

/// UBSan stacks name the function that failed.
extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1";
}

#endif // TP_FUZZ_FUZZSUPPORT_H
