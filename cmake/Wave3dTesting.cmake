include(GoogleTest)

# Every test has exactly one kind, its only label: what it needs to run and how long it takes.
#   unit       a GoogleTest case in one process
#   mpi        a GoogleTest executable under mpiexec, at one rank count
#   e2e        the wave3d or wave3d-noise executable end to end, on one or more ranks
#   python     the Python package's own tests (analysis, report, plots), no wave3d run
#   study      the study runner driving wave3d locally
#   slurm      a job through the private one-node Slurm test cluster
#   multinode  a job across the three-node test cluster (network namespaces, cgroup cpusets)
#   numa       a virtual machine with several NUMA nodes (QEMU)
# The area of a test is the first word of its name (io_, noise_, placement_, test_kernel....).
set(WAVE3D_TEST_KINDS unit mpi e2e python study slurm multinode numa)

# One way to register every test. wave3d_add_test runs COMMAND under `mpiexec -n RANKS` (with
# oversubscription, so 8 ranks fit on a 2-core machine) when RANKS is given, sets OMP_NUM_THREADS,
# and always sets a timeout so a hang fails fast.
#
#   wave3d_add_test(NAME name KIND kind COMMAND exe args... [RANKS n] [THREADS t] [TIMEOUT s]
#                   [WILL_FAIL] [PASS_REGULAR_EXPRESSION re] [ENVIRONMENT k=v...])
function(wave3d_add_test)
  cmake_parse_arguments(T "WILL_FAIL" "NAME;KIND;RANKS;THREADS;TIMEOUT;PASS_REGULAR_EXPRESSION"
                        "COMMAND;ENVIRONMENT" ${ARGN})
  if(NOT T_NAME OR NOT T_COMMAND)
    message(FATAL_ERROR "wave3d_add_test needs NAME and COMMAND")
  endif()
  if(NOT T_KIND IN_LIST WAVE3D_TEST_KINDS)
    message(FATAL_ERROR "wave3d_add_test(${T_NAME}): KIND '${T_KIND}' is not one of ${WAVE3D_TEST_KINDS}")
  endif()
  if(NOT T_THREADS)
    set(T_THREADS 1)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${WAVE3D_TEST_TIMEOUT})
  endif()
  set(command ${T_COMMAND})
  if(T_RANKS)
    set(command ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_RANKS} --oversubscribe
                --bind-to none ${MPIEXEC_PREFLAGS} ${T_COMMAND})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${command})
  set(env OMP_NUM_THREADS=${T_THREADS} ${T_ENVIRONMENT} ${WAVE3D_TEST_ENVIRONMENT})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT} ENVIRONMENT "${env}" LABELS ${T_KIND})
  if(T_WILL_FAIL)
    set_tests_properties(${T_NAME} PROPERTIES WILL_FAIL TRUE)
  endif()
  if(T_PASS_REGULAR_EXPRESSION)
    set_tests_properties(${T_NAME} PROPERTIES PASS_REGULAR_EXPRESSION "${T_PASS_REGULAR_EXPRESSION}")
  endif()
endfunction()

# A GoogleTest executable built from SOURCES, each of its cases a test of its own named
# <name>.<Suite>.<Case> (found by listing the executable before the tests run), so that one case can
# be run alone: ctest -R 'test_kernel\.Jammed'.
#   wave3d_add_gtest(NAME name SOURCES a.cpp... [LIBS libs...] [THREADS t] [TIMEOUT s])
function(wave3d_add_gtest)
  cmake_parse_arguments(G "" "NAME;THREADS;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  add_executable(${G_NAME} ${G_SOURCES})
  target_link_libraries(${G_NAME} PRIVATE GTest::gtest GTest::gtest_main wave3d_node wave3d_flags ${G_LIBS})
  if(NOT G_THREADS)
    set(G_THREADS 1)
  endif()
  if(NOT G_TIMEOUT)
    set(G_TIMEOUT ${WAVE3D_TEST_TIMEOUT})
  endif()
  # The test environment comes through `cmake -E env` in front of the executable: CMake 3.25's
  # discovery flattens a list-valued ENVIRONMENT property to its first entry.
  set_property(TARGET ${G_NAME} PROPERTY CROSSCOMPILING_EMULATOR
               ${CMAKE_COMMAND} -E env OMP_NUM_THREADS=${G_THREADS} ${WAVE3D_TEST_ENVIRONMENT})
  gtest_discover_tests(${G_NAME} TEST_PREFIX "${G_NAME}." DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${G_TIMEOUT} LABELS unit)
endfunction()

# A GoogleTest executable with an MPI-initialising main, run under mpiexec at each rank count in
# RANKS as one test per count (name_np<n>). A single case: GTEST_FILTER=Suite.Case ctest -R name_np4.
#   wave3d_add_mpi_gtest(NAME name SOURCES a.cpp... [LIBS libs...] RANKS n... [THREADS t] [TIMEOUT s])
function(wave3d_add_mpi_gtest)
  cmake_parse_arguments(G "" "NAME;THREADS;TIMEOUT" "SOURCES;LIBS;RANKS" ${ARGN})
  add_executable(${G_NAME} ${G_SOURCES} ${PROJECT_SOURCE_DIR}/tests/mpi/mpi_test_main.cpp)
  target_include_directories(${G_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests/mpi)
  target_link_libraries(${G_NAME} PRIVATE GTest::gtest wave3d_mpi wave3d_node wave3d_flags ${G_LIBS})
  set(extra)
  foreach(key THREADS TIMEOUT)
    if(G_${key})
      list(APPEND extra ${key} ${G_${key}})
    endif()
  endforeach()
  foreach(n ${G_RANKS})
    # Up to 8 ranks x 2 threads share a few cores here, so OpenMP threads must sleep rather than
    # spin at barriers: spinning threads hold the cores the descheduled ones need.
    wave3d_add_test(NAME ${G_NAME}_np${n} KIND mpi COMMAND $<TARGET_FILE:${G_NAME}> RANKS ${n} ${extra}
                    ENVIRONMENT OMP_WAIT_POLICY=passive)
  endforeach()
endfunction()
