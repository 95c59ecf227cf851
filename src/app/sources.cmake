target_sources(wave3d PRIVATE stream_command.cpp)
