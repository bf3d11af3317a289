#===- TPCUDA.cmake - Find CUDA and NCCL, enable the CUDA language ---------===#
#
# Included from the top-level CMakeLists.txt (enable_language must be called
# in the directory common to every target that compiles or links CUDA code).
# Sets TP_HAVE_CUDA (0/1) and, when 1, NCCL_INCLUDE_DIR and NCCL_LIBRARY;
# lib/Runtime then builds TPRuntimeCUDA and unittests/Runtime the
# TPRuntimeCUDATests.
#
# The CUDA part is built only if TP_ENABLE_CUDA is ON and the CUDA toolkit
# (nvcc, cudart, cuBLAS) and NCCL (nccl.h, libnccl) are all found; a machine
# without them builds everything else exactly as before. No GPU is needed to
# build: the GPU tests skip at run time.
#
#===----------------------------------------------------------------------===#

# Off by default on CI (the environment variable CI is set): CI machines have
# no GPU, so the CUDA build only costs time there (see docs/gpu.md for the
# measured cost); -DTP_ENABLE_CUDA=ON still builds it.
if(DEFINED ENV{CI})
  set(tp_cuda_default OFF)
else()
  set(tp_cuda_default ON)
endif()
option(TP_ENABLE_CUDA
  "Build the CUDA kernels and NCCL backend when CUDA and NCCL are found"
  ${tp_cuda_default})

set(tp_have_cuda 0)
if(TP_ENABLE_CUDA)
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE)
    find_path(NCCL_INCLUDE_DIR nccl.h
      HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include
            $ENV{NCCL_HOME}/include)
    find_library(NCCL_LIBRARY nccl
      HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64
            $ENV{NCCL_HOME}/lib $ENV{NCCL_HOME}/lib64)
  endif()
  if(NOT CUDAToolkit_FOUND OR NOT CUDAToolkit_NVCC_EXECUTABLE)
    message(STATUS "CUDA toolkit not found: building without the CUDA "
                   "kernels and the nccl backend")
  elseif(NOT TARGET CUDA::cublas)
    message(STATUS "cuBLAS not found: building without CUDA")
  elseif(NOT NCCL_INCLUDE_DIR OR NOT NCCL_LIBRARY)
    message(STATUS "NCCL not found (nccl.h / libnccl): building without "
                   "the CUDA kernels and the nccl backend")
  else()
    if(NOT CMAKE_CUDA_COMPILER)
      set(CMAKE_CUDA_COMPILER ${CUDAToolkit_NVCC_EXECUTABLE})
    endif()
    # A short list keeps the build fast: SASS for A100 (sm_80) and
    # H100/H200 (sm_90) plus sm_90 PTX, which newer GPUs JIT-compile.
    if(NOT CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
    endif()
  endif()
  # An nvcc that cannot work with the host compiler must not break the
  # configuration of everything else: compile a probe once (a few seconds)
  # and build without CUDA if that fails.
  if(CMAKE_CUDA_COMPILER AND NOT DEFINED TP_CUDA_PROBE_OK)
    set(tp_probe_dir ${CMAKE_BINARY_DIR}${CMAKE_FILES_DIRECTORY}/TPCUDAProbe)
    file(WRITE ${tp_probe_dir}/probe.cu "__global__ void probe() {}\n")
    execute_process(
      COMMAND ${CMAKE_CUDA_COMPILER} -c probe.cu -o probe.o
      WORKING_DIRECTORY ${tp_probe_dir}
      RESULT_VARIABLE tp_probe_result
      OUTPUT_VARIABLE tp_probe_output ERROR_VARIABLE tp_probe_output)
    if(tp_probe_result EQUAL 0)
      set(TP_CUDA_PROBE_OK ON CACHE INTERNAL "nvcc compiles a probe")
    else()
      set(TP_CUDA_PROBE_OK OFF CACHE INTERNAL "nvcc compiles a probe")
      message(STATUS "${CMAKE_CUDA_COMPILER} cannot compile a probe, building "
                     "without CUDA:\n${tp_probe_output}")
    endif()
  endif()
  if(CMAKE_CUDA_COMPILER AND TP_CUDA_PROBE_OK AND NCCL_INCLUDE_DIR AND
     NCCL_LIBRARY AND TARGET CUDA::cublas)
    enable_language(CUDA)
    if(TP_CCACHE)
      set(CMAKE_CUDA_COMPILER_LAUNCHER ${TP_CCACHE})
    endif()
    set(tp_have_cuda 1)
    message(STATUS "CUDA ${CUDAToolkit_VERSION} and NCCL (${NCCL_LIBRARY}) "
                   "found: building TPRuntimeCUDA for CUDA architectures "
                   "${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endif()
set(TP_HAVE_CUDA ${tp_have_cuda} CACHE INTERNAL
    "Whether the CUDA kernels and the nccl backend are built")
