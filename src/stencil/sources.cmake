target_sources(wave3d_node PRIVATE stencil/coefficients.cpp stencil/kernel.cpp stencil/folded_kernel.cpp
                                   stencil/folded_field.cpp)

# GCC vectorises with 128-bit vectors on some cores that have 256-bit ones (AMD Zen 1 and 2), for
# fear of the split 256-bit operations; the blocked kernel's rows measured 10-15 % faster with
# 256-bit vectors there (wave3d bench --kernel blocked). Where 256 is the default already it changes
# nothing.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-mprefer-vector-width=256 WAVE3D_HAS_PREFER_VECTOR_WIDTH)
if(WAVE3D_NATIVE AND WAVE3D_HAS_PREFER_VECTOR_WIDTH)
  set_source_files_properties(stencil/kernel.cpp PROPERTIES COMPILE_OPTIONS -mprefer-vector-width=256)
endif()
