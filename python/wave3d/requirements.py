"""The check a command-line tool makes before it imports the analysis: numpy and matplotlib come from
Debian's packages, so the first python3 on PATH (pyenv, a venv) may lack them. Imports nothing itself."""
import importlib.util
import sys


def exit_unless_importable(tool, modules=("numpy", "matplotlib")):
    """One clear line and exit status 3 when `modules` cannot be imported, rather than a traceback."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        print(f"{tool}: {sys.executable} cannot import {' and '.join(missing)}; install Debian's python3-numpy "
              "and python3-matplotlib, or run it with /usr/bin/python3", file=sys.stderr)
        sys.exit(3)
