"""matplotlib for the plotting scripts: files only (the Agg backend), or one clear line and exit code 3
when the interpreter cannot import it (the wave3d commands that call a script report that exit as
"PNG not written")."""
import sys


def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"matplotlib is not available to {sys.executable}: {e}", file=sys.stderr)
        sys.exit(3)
    return plt
