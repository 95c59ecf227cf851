# Warnings and code generation shared by every wave3d target, through one interface target.
add_library(wave3d_flags INTERFACE)
target_compile_options(wave3d_flags INTERFACE -Wall -Wextra -Wshadow -Wno-unknown-pragmas)
# Every fused multiply-add is written out (stencil/simd.hpp): the kernel variants agree bit for bit
# only if the compiler fuses no product on its own, which it would do differently in each.
target_compile_options(wave3d_flags INTERFACE -ffp-contract=off)

if(WAVE3D_NATIVE)
  target_compile_options(wave3d_flags INTERFACE -march=native)
endif()

if(WAVE3D_SANITIZE STREQUAL "address-undefined")
  target_compile_options(wave3d_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                -fno-sanitize-recover=undefined)
  target_link_options(wave3d_flags INTERFACE -fsanitize=address,undefined)
endif()

# Whether the kernels are built with AVX-512 (the folded kernel needs it): its end-to-end tests run
# only in such builds, the refusal of stencil.kernel = "folded" only in the others.
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "")
if(WAVE3D_NATIVE)
  set(CMAKE_REQUIRED_FLAGS "-march=native")
endif()
check_cxx_source_compiles("#if !defined(__AVX512F__)\n#error no AVX-512\n#endif\nint main() { return 0; }"
                          WAVE3D_BUILD_HAS_AVX512)
unset(CMAKE_REQUIRED_FLAGS)
