target_sources(wave3d_node PRIVATE
  field/aligned_buffer.cpp field/first_touch.cpp field/huge_pages.cpp field/periodic_halo.cpp)
target_sources(wave3d_node PRIVATE field/memory_placement.cpp field/page_locations.cpp field/plane_stride.cpp)
