target_sources(wave3d_node PRIVATE probe/stream.cpp probe/stream_json.cpp)
