# onepass_enable_cuda(<var>): enables the CUDA language when nvcc is found (sources compile
# without a GPU too) and sets <var> ON, else OFF. CMAKE_CUDA_ARCHITECTURES defaults to 90
# (H100) as a cache entry a parent or the command line can override; C++17; CUDAToolkit
# found. A macro, so that the language and the variables reach the calling directory.
macro(onepass_enable_cuda onepass_enable_cuda_result)
  set(${onepass_enable_cuda_result} OFF)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures (default: 90, H100)")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(${onepass_enable_cuda_result} ON)
  endif()
endmacro()
