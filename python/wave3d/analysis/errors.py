"""Errors for bad input: a file (named with its line, when there is one) or an option value."""


class OptionError(ValueError):
    """An option value the inputs cannot be used with (e.g. --cores-per-rank against the trace files)."""


class InputError(Exception):
    """An input file is missing, empty or malformed. The command line tools exit with code 2 on it."""

    def __init__(self, path, message, line=None):
        super().__init__(message)
        self.path = str(path)
        self.line = line
        self.message = message

    def __str__(self):
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"
