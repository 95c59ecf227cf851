# The Python interpreter for the test drivers and the analysis tools (python/tools). The analysis
# needs numpy, matplotlib and h5py, which come from Debian's packages, so they are importable by the
# system interpreter but not necessarily by the first python3 on PATH (pyenv, a venv). Prefer the
# system one unless the user chose an interpreter with -DPython3_EXECUTABLE=...
if(NOT DEFINED Python3_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter for tests and analysis")
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)

execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy, matplotlib, h5py"
                RESULT_VARIABLE wave3d_python_modules_missing OUTPUT_QUIET ERROR_QUIET)
if(wave3d_python_modules_missing)
  message(WARNING "wave3d: ${Python3_EXECUTABLE} cannot import numpy, matplotlib and h5py; the analysis "
                  "tools and their tests need them (scripts/install-deps.sh installs Debian's packages).")
  set(WAVE3D_PYTHON_ANALYSIS OFF)
else()
  set(WAVE3D_PYTHON_ANALYSIS ON)
endif()
