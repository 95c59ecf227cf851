# `cmake --install` lays wave3d out the way a cluster's software tree expects (GNU directories):
#   bin/wave3d, bin/wave3d-noise
#   share/wave3d/python/        the wave3d Python package and its tools (the binary finds the plot
#                               scripts here, relative to itself)
#   share/wave3d/configs/       default.toml and the studies
#   share/wave3d/jobscripts/    the study runner and one job template per scheduler
#   lib/cmake/wave3d/           a CMake package: find_package(wave3d) gives wave3d::wave3d and
#                               wave3d::wave3d-noise and the directories above
#   share/modulefiles/wave3d/<version>.lua   an Lmod module (PATH, PYTHONPATH, WAVE3D_ROOT)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(WAVE3D_INSTALL_SHARE ${CMAKE_INSTALL_DATADIR}/wave3d)
set(WAVE3D_INSTALL_CMAKE ${CMAKE_INSTALL_LIBDIR}/cmake/wave3d)

install(TARGETS wave3d wave3d-noise EXPORT wave3dTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ DESTINATION ${WAVE3D_INSTALL_SHARE}/python
        PATTERN __pycache__ EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${WAVE3D_INSTALL_SHARE}/configs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobscripts/ DESTINATION ${WAVE3D_INSTALL_SHARE}/jobscripts
        USE_SOURCE_PERMISSIONS PATTERN __pycache__ EXCLUDE)

install(EXPORT wave3dTargets NAMESPACE wave3d:: DESTINATION ${WAVE3D_INSTALL_CMAKE})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/install/wave3dConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/wave3dConfig.cmake INSTALL_DESTINATION ${WAVE3D_INSTALL_CMAKE}
  PATH_VARS WAVE3D_INSTALL_SHARE)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/wave3dConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/wave3dConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/wave3dConfigVersion.cmake
        DESTINATION ${WAVE3D_INSTALL_CMAKE})

# The Lmod module names the prefix it is installed under, so it is written at install time (a
# relocated tree, e.g. cmake --install --prefix, gets its own).
install(CODE "
  set(prefix \"\${CMAKE_INSTALL_PREFIX}\")
  set(WAVE3D_VERSION \"${PROJECT_VERSION}\")
  set(WAVE3D_BINDIR \"${CMAKE_INSTALL_BINDIR}\")
  set(WAVE3D_SHAREDIR \"${WAVE3D_INSTALL_SHARE}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/install/wave3d-module.lua.in\"
                 \"\$ENV{DESTDIR}\${prefix}/${CMAKE_INSTALL_DATADIR}/modulefiles/wave3d/${PROJECT_VERSION}.lua\" @ONLY)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${prefix}/${CMAKE_INSTALL_DATADIR}/modulefiles/wave3d/${PROJECT_VERSION}.lua\")
")
