"""argparse types the command-line tools share: each rejects what it does not accept with a message
naming the value and what is allowed."""

import argparse


def _int_at_least(text, least, allowed):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"'{text}': must be {allowed}")
    return value


def positive_int(text):
    return _int_at_least(text, 1, "at least 1")


def non_negative_int(text):
    return _int_at_least(text, 0, "0 or more")


def positive_float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}': must be a positive number")
    return value
