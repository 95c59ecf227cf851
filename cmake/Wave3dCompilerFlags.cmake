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
