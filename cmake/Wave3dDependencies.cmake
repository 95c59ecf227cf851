# Third-party libraries, all consumed as imported targets. hwloc and PAPI have no CMake package
# files in Debian, so they come through pkg-config's IMPORTED_TARGET.

find_package(MPI REQUIRED COMPONENTS CXX)
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(PkgConfig REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(fmt REQUIRED)
find_package(tomlplusplus REQUIRED)

set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C HL)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "wave3d needs a parallel (MPI) HDF5; found a serial one at ${HDF5_INCLUDE_DIRS}. "
                      "On Debian install libhdf5-openmpi-dev and not libhdf5-dev.")
endif()

pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc>=2.0)

if(WAVE3D_WITH_PAPI)
  pkg_check_modules(PAPI REQUIRED IMPORTED_TARGET papi)
endif()
