#===- TPStaticLLVM.cmake - MLIR's imported libraries on the static LLVM ---===#
#
# Included by tp's top-level CMakeLists.txt and by the installed TPConfig.cmake,
# after find_package(MLIR): tp links the static LLVM libraries, and every
# program that links tp must do the same, or LLVM ends up twice in one
# process (libLLVM.so and tp's static LLVMSupport) with two copies of its
# global state (its command-line option registry aborts at start-up).
#
# Debian's MLIR libraries were built against libLLVM.so, so their exported
# link interfaces name the `LLVM` target; this gives them the static LLVM
# libraries that the MLIR libraries tp links need instead (Remarks for
# MLIRRemarkStreamer). The linker takes only the archive members it uses.
# Only the imported MLIR targets visible where this is included change.
#
#===----------------------------------------------------------------------===#

get_property(tp_mlir_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
foreach(tp_mlir_lib IN LISTS tp_mlir_libs)
  if(TARGET ${tp_mlir_lib})
    get_target_property(tp_mlir_deps ${tp_mlir_lib} INTERFACE_LINK_LIBRARIES)
    if(tp_mlir_deps AND "LLVM" IN_LIST tp_mlir_deps)
      list(TRANSFORM tp_mlir_deps REPLACE "^LLVM$" "LLVMRemarks;LLVMSupport")
      set_target_properties(${tp_mlir_lib} PROPERTIES
        INTERFACE_LINK_LIBRARIES "${tp_mlir_deps}")
    endif()
  endif()
endforeach()
unset(tp_mlir_libs)
unset(tp_mlir_lib)
unset(tp_mlir_deps)
