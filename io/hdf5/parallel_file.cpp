#include "io/hdf5/parallel_file.hpp"

namespace wave3d::io {
namespace {

Hid file_access(MPI_Comm comm, const std::string& path) {
  silence_hdf5_errors();
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "cannot create a file access property list for " + path);
  check_status(H5Pset_fapl_mpio(fapl.get(), comm, MPI_INFO_NULL), "cannot select MPI-IO for " + path);
  // The 1.8 format: dense attribute storage (the resolved config and provenance may exceed the 64 KiB
  // an object header holds) while every reader from HDF5 1.8 on can still open the file.
  check_status(H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_V18, H5F_LIBVER_V18),
               "cannot select the HDF5 1.8 file format for " + path);
  check_status(H5Pset_all_coll_metadata_ops(fapl.get(), true), "cannot make metadata reads collective for " + path);
  check_status(H5Pset_coll_metadata_write(fapl.get(), true), "cannot make metadata writes collective for " + path);
  return fapl;
}

}  // namespace

Hid create_parallel_file(MPI_Comm comm, const std::filesystem::path& path) {
  const std::string name = path.string();
  const Hid fapl = file_access(comm, name);
  return Hid(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
             "cannot create HDF5 file '" + name + "'");
}

Hid open_parallel_file(MPI_Comm comm, const std::filesystem::path& path) {
  const std::string name = path.string();
  const Hid fapl = file_access(comm, name);
  return Hid(H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.get()), H5Fclose, "cannot open '" + name + "' as an HDF5 file");
}

Hid collective_transfer() {
  Hid dxpl(H5Pcreate(H5P_DATASET_XFER), H5Pclose, "cannot create a transfer property list");
  check_status(H5Pset_dxpl_mpio(dxpl.get(), H5FD_MPIO_COLLECTIVE), "cannot select collective MPI-IO transfers");
  return dxpl;
}

}  // namespace wave3d::io
