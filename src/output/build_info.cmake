# Generates <build>/src/generated/output/build_info.hpp: the facts about this build that every
# run.json records (version, git commit, compiler, flags). They are fixed at configure time, so the
# configure step re-runs when git's HEAD or index changes, to keep the commit and dirty flag current.

# Git: commit from `git describe --always`; dirty when tracked files differ from HEAD, which is what
# `describe --dirty` reports. The dirty test uses `status --no-optional-locks` because describe
# --dirty takes the index lock, and a configure must never make a concurrent `git commit` fail.
set(_w3d_git_commit "unknown")
set(_w3d_git_dirty "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always
                  WORKING_DIRECTORY ${wave3d_SOURCE_DIR} RESULT_VARIABLE _w3d_rc
                  OUTPUT_VARIABLE _w3d_describe ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_w3d_rc EQUAL 0 AND NOT _w3d_describe STREQUAL "")
    set(_w3d_git_commit "${_w3d_describe}")
    execute_process(COMMAND ${GIT_EXECUTABLE} --no-optional-locks status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${wave3d_SOURCE_DIR} RESULT_VARIABLE _w3d_rc
                    OUTPUT_VARIABLE _w3d_status ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_w3d_rc EQUAL 0)
      if(_w3d_status STREQUAL "")
        set(_w3d_git_dirty "false")
      else()
        set(_w3d_git_dirty "true")
      endif()
    endif()
    execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --absolute-git-dir
                    WORKING_DIRECTORY ${wave3d_SOURCE_DIR} RESULT_VARIABLE _w3d_rc
                    OUTPUT_VARIABLE _w3d_git_dir ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_w3d_rc EQUAL 0)
      foreach(_w3d_file HEAD index)
        if(EXISTS "${_w3d_git_dir}/${_w3d_file}")
          set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_w3d_git_dir}/${_w3d_file}")
        endif()
      endforeach()
    endif()
  endif()
endif()
set(_w3d_git_describe "${_w3d_git_commit}")
if(_w3d_git_dirty STREQUAL "true")
  string(APPEND _w3d_git_describe "-dirty")
endif()

# The C++ flags wave3d's own sources are compiled with: the build-type flags, the language standard,
# OpenMP, and the options of wave3d_flags (warnings, -march=native, sanitizers).
string(TOUPPER "${CMAKE_BUILD_TYPE}" _w3d_build_type_upper)
set(_w3d_std_flag "")
if(CMAKE_CXX_STANDARD)
  if(CMAKE_CXX_EXTENSIONS)
    set(_w3d_std_flag "${CMAKE_CXX${CMAKE_CXX_STANDARD}_EXTENSION_COMPILE_OPTION}")
  else()
    set(_w3d_std_flag "${CMAKE_CXX${CMAKE_CXX_STANDARD}_STANDARD_COMPILE_OPTION}")
  endif()
endif()
get_target_property(_w3d_interface_options wave3d_flags INTERFACE_COMPILE_OPTIONS)
if(NOT _w3d_interface_options)
  set(_w3d_interface_options "")
endif()
string(GENEX_STRIP "${_w3d_interface_options}" _w3d_interface_options)
list(JOIN _w3d_interface_options " " _w3d_interface_options)
set(_w3d_cxx_flags "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_w3d_build_type_upper}} ${_w3d_std_flag}")
string(APPEND _w3d_cxx_flags " ${OpenMP_CXX_FLAGS} ${_w3d_interface_options}")
string(REGEX REPLACE "[ \t]+" " " _w3d_cxx_flags "${_w3d_cxx_flags}")
string(STRIP "${_w3d_cxx_flags}" _w3d_cxx_flags)

set(_w3d_build_type "${CMAKE_BUILD_TYPE}")
if(_w3d_build_type STREQUAL "")
  set(_w3d_build_type "none")
endif()
if(WAVE3D_NATIVE)
  set(_w3d_native true)
else()
  set(_w3d_native false)
endif()

configure_file(${CMAKE_CURRENT_LIST_DIR}/build_info.hpp.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/output/build_info.hpp @ONLY)
target_include_directories(wave3d_node PUBLIC ${CMAKE_CURRENT_BINARY_DIR}/generated)
