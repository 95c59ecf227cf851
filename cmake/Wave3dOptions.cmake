# User-facing build options. Every option carries the WAVE3D_ prefix; enumerated values are validated here
# so a typo fails at configure time instead of silently picking a default.

option(WAVE3D_BUILD_TESTS "Build the test suite (CTest)" ON)
option(WAVE3D_WITH_PAPI "Build with PAPI hardware counters" ON)
option(WAVE3D_NATIVE "Compile for the build machine's CPU (-march=native)" ON)

set(WAVE3D_SANITIZE "none" CACHE STRING "Sanitizers to build with: none, address-undefined")
set_property(CACHE WAVE3D_SANITIZE PROPERTY STRINGS none address-undefined)
set(_wave3d_sanitizers none address-undefined)
if(NOT WAVE3D_SANITIZE IN_LIST _wave3d_sanitizers)
  message(FATAL_ERROR "WAVE3D_SANITIZE='${WAVE3D_SANITIZE}' is not one of: none, address-undefined")
endif()

set(WAVE3D_TEST_TIMEOUT "120" CACHE STRING "Default timeout in seconds for each test")

if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
  set_property(CACHE CMAKE_BUILD_TYPE PROPERTY STRINGS Debug Release RelWithDebInfo)
endif()
