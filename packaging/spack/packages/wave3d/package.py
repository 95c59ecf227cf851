# A Spack recipe for wave3d, kept with the source it builds. Use it as a repository of its own:
#
#   spack repo add packaging/spack
#   spack develop --path "$PWD" wave3d@main      # build this checkout
#   spack install wave3d@main +papi ~native      # a portable build for a login node unlike the compute nodes
#
# Its variants are the project's CMake options (cmake/Wave3dOptions.cmake); tests/install checks that
# they stay the same.
from spack.package import *


class Wave3d(CMakePackage):
    """Hybrid MPI+OpenMP ISO3DFD-style acoustic wave stencil mini-app for placement, surplus-core and
    daemon-jitter studies on clusters."""

    # No public release or page: Spack builds a checkout given with `spack develop`.
    version("main")

    variant("papi", default=True, description="Hardware event counters through PAPI (WAVE3D_WITH_PAPI)")
    variant("native", default=True,
            description="Compile for the build machine's CPU, -march=native (WAVE3D_NATIVE); turn off on a "
                        "login node that differs from the compute nodes")

    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("ninja", type="build")
    depends_on("mpi")
    depends_on("hdf5+mpi")
    depends_on("hwloc")
    depends_on("papi", when="+papi")
    depends_on("cli11", type="build")
    depends_on("tomlplusplus", type="build")
    depends_on("nlohmann-json", type="build")
    depends_on("fmt")
    depends_on("python@3.11:", type="run")
    depends_on("py-numpy", type="run")
    depends_on("py-matplotlib", type="run")
    depends_on("py-h5py", type="run")

    generator("ninja")

    def cmake_args(self):
        return [
            self.define_from_variant("WAVE3D_WITH_PAPI", "papi"),
            self.define_from_variant("WAVE3D_NATIVE", "native"),
            self.define("WAVE3D_BUILD_TESTS", False),
        ]
