#!/usr/bin/env python3
"""packaging/spack/packages/wave3d/package.py against the build it describes, without Spack: loaded with
a stand-in for spack.package, its variants must be exactly the project's on/off CMake options that a
user chooses (cmake/Wave3dOptions.cmake, less the test switch it turns off), each passed to CMake by
cmake_args under its own name, on and off.

  check_spack_recipe.py --root SRC
"""
import argparse
import importlib.util
import re
import sys
import types
from pathlib import Path


def stand_in_spack():
    declared = {"variants": {}, "depends_on": []}

    class Spec:
        def __init__(self, on):
            self.on = on

        def satisfies(self, text):
            return self.on.get(text.lstrip("+~"), False) if text.startswith("+") else not self.on.get(text[1:], True)

    class CMakePackage:
        def __init__(self, on):
            self.spec = Spec(on)

        def define(self, name, value):
            return f"-D{name}:{'BOOL' if isinstance(value, bool) else 'STRING'}={'ON' if value is True else 'OFF' if value is False else value}"

        def define_from_variant(self, name, variant):
            return self.define(name, self.spec.on[variant])

    module = types.ModuleType("spack.package")
    module.CMakePackage = CMakePackage
    module.version = lambda *a, **k: None
    module.maintainers = lambda *a: None
    module.license = lambda *a, **k: None
    module.generator = lambda *a: None
    module.variant = lambda name, **k: declared["variants"].__setitem__(name, k.get("default"))
    module.depends_on = lambda spec, **k: declared["depends_on"].append((spec, k.get("when")))
    module.__all__ = [n for n in dir(module) if not n.startswith("_")]
    spack = types.ModuleType("spack")
    spack.package = module
    sys.modules.update({"spack": spack, "spack.package": module})
    return declared


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", required=True)
    root = Path(parser.parse_args().root)
    declared = stand_in_spack()
    spec = importlib.util.spec_from_file_location("wave3d_recipe", root / "packaging/spack/packages/wave3d/package.py")
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)

    options = re.findall(r"^option\((WAVE3D_\w+) ", (root / "cmake/Wave3dOptions.cmake").read_text(), re.M)
    chosen = sorted(o for o in options if o != "WAVE3D_BUILD_TESTS")
    failures = []
    by_option = {"WAVE3D_WITH_PAPI": "papi", "WAVE3D_NATIVE": "native"}
    if sorted(by_option) != chosen:
        failures.append(f"the project's options {chosen} are not the ones the recipe maps {sorted(by_option)}")
    if sorted(declared["variants"]) != sorted(by_option.values()):
        failures.append(f"variants {sorted(declared['variants'])}, expected {sorted(by_option.values())}")
    for value in (True, False):
        args = recipe.Wave3d({v: value for v in by_option.values()}).cmake_args()
        for option in by_option:
            want = f"-D{option}:BOOL={'ON' if value else 'OFF'}"
            if want not in args:
                failures.append(f"cmake_args with every variant {'on' if value else 'off'} lacks {want}: {args}")
        if "-DWAVE3D_BUILD_TESTS:BOOL=OFF" not in args:
            failures.append(f"cmake_args does not turn the tests off: {args}")
    if ("papi", "+papi") not in declared["depends_on"]:
        failures.append("PAPI is not a dependency of +papi alone")
    for failure in failures:
        print(f"FAIL: {failure}")
    if failures:
        sys.exit(1)
    print(f"PASS: variants {sorted(declared['variants'])} map to {sorted(by_option)}")


if __name__ == "__main__":
    main()
