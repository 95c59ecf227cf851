# The config module: TOML file + --set overrides -> validated RunConfig.
target_sources(wave3d_node PRIVATE
  config/config_schema.cpp config/config_value.cpp config/config_settings.cpp config/config_override.cpp
  config/config_resolve.cpp config/config_loader.cpp config/config_json.cpp config/config_help.cpp)

# configs/default.toml is embedded into the binary so `wave3d run` works anywhere. It is read at
# configure time; CMAKE_CONFIGURE_DEPENDS re-runs CMake (and so regenerates the header) when it changes.
set(_wave3d_default_toml ${PROJECT_SOURCE_DIR}/configs/default.toml)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_wave3d_default_toml})
file(READ ${_wave3d_default_toml} WAVE3D_DEFAULT_CONFIG_TOML)
string(FIND "${WAVE3D_DEFAULT_CONFIG_TOML}" ")wave3d_toml" _wave3d_delimiter_at)
if(NOT _wave3d_delimiter_at EQUAL -1)
  message(FATAL_ERROR "${_wave3d_default_toml} contains ')wave3d_toml', the raw-string delimiter used to embed it")
endif()
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/config/config_default_toml.hpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/config/config_default_toml.hpp @ONLY)
target_include_directories(wave3d_node PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/generated)
unset(WAVE3D_DEFAULT_CONFIG_TOML)
