target_sources(wave3d_node PRIVATE stencil/coefficients.cpp stencil/kernel.cpp)
