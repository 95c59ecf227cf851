target_sources(wave3d_node PRIVATE
  field/aligned_buffer.cpp field/first_touch.cpp field/periodic_halo.cpp)
