"""Run by ParaView's pvpython (not by the test's Python): opens an XDMF file with ParaView's own readers
and writes what they see, for check_paraview.py to compare with h5py.

usage: pvpython paraview_read.py XMF OUT_DIR

For each reader (Xdmf3ReaderS, the XDMF 3 reader; XDMFReader, the legacy XDMF 2 one) and each time
step it offers: the time, the grid's dimensions, spacing and origin, and every point array, saved as
OUT_DIR/<reader>.json and OUT_DIR/<reader>_<frame>_<array>.npy. Exit status 0 when both readers opened
the file; 1 with the error otherwise.
"""
import json
import os
import sys

import numpy
from paraview import servermanager
from paraview.simple import UpdatePipeline, XDMFReader, Xdmf3ReaderS
from vtk.numpy_interface import dataset_adapter as dsa

READERS = {"Xdmf3ReaderS": lambda path: Xdmf3ReaderS(FileName=[path]),
           "XDMFReader": lambda path: XDMFReader(FileNames=[path])}


def first_block(data):
    """A temporal XDMF collection may come as a multiblock of one grid."""
    while data is not None and data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    return data


def read_with(name, path, out_dir):
    reader = READERS[name](path)
    frames = []
    for index, time in enumerate(reader.TimestepValues or []):
        UpdatePipeline(time=time, proxy=reader)
        data = first_block(servermanager.Fetch(reader))
        if data is None:
            raise RuntimeError(f"{name}: no grid at time {time}")
        wrapped = dsa.WrapDataObject(data)
        arrays = list(wrapped.PointData.keys())
        for array in arrays:
            numpy.save(os.path.join(out_dir, f"{name}_{index}_{array}.npy"), numpy.asarray(wrapped.PointData[array]))
        frames.append({"time": float(time), "dimensions": list(data.GetDimensions()),
                       "spacing": list(data.GetSpacing()), "origin": list(data.GetOrigin()), "arrays": arrays})
    with open(os.path.join(out_dir, f"{name}.json"), "w") as f:
        json.dump({"frames": frames}, f)


def main():
    path, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    for name in READERS:
        read_with(name, path, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
