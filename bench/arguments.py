"""Command-line options of the benchmark scripts, checked as gec-meta's own: a count out of its
range, an unknown device or job is one line ``<script>: error: argument --limit: must be an
integer >= 1, got -5`` and exit status 2, before anything runs (not a silent full run, not a
traceback)."""

from __future__ import annotations

import argparse
import sys


class Parser(argparse.ArgumentParser):
    """argparse, with its errors in one line (argparse prints the usage first)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def count(lo: int = 1, hi: int | None = None):
    """An argparse type: an integer in [lo, hi]."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < lo or (hi is not None and value > hi):
            bounds = f">= {lo}" + ("" if hi is None else f" and <= {hi}")
            raise argparse.ArgumentTypeError(f"must be an integer {bounds}, got {text!r}")
        return value

    return parse


def counts(lo: int = 1):
    """An argparse type: a comma-separated list of integers >= lo (``1,8,32``)."""
    one = count(lo)

    def parse(text: str) -> list[int]:
        parts = [p.strip() for p in text.split(",")]
        if not all(parts):
            raise argparse.ArgumentTypeError(f"must be a comma-separated list of integers >= {lo}, got {text!r}")
        return [one(p) for p in parts]

    return parse


def seconds(text: str) -> float:
    """An argparse type: a number of seconds > 0."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds > 0, got {text!r}")
    return value


def device(text: str) -> str:
    """An argparse type: ``auto``, ``cpu``, ``cuda``, ``cuda:N`` or ``mps``, present on this
    machine (:func:`gec_meta.devices.resolve_device`); returned as given."""
    from gec_meta.devices import resolve_device
    from gec_meta.errors import ConfigError

    try:
        resolve_device(text, "--device")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--device={text!r}: ").removeprefix(
            f"--device={text}: ")) from None
    return text


def choices_list(options):
    """An argparse type: a comma-separated subset of ``options`` (``ptm2,bertscore``)."""
    def parse(text: str) -> list[str]:
        parts = [p.strip() for p in text.split(",") if p.strip()]
        unknown = [p for p in parts if p not in options]
        if unknown or not parts:
            raise argparse.ArgumentTypeError(f"unknown {unknown[0]!r}; choose from {', '.join(options)}" if unknown
                                             else f"choose from {', '.join(options)}")
        return parts

    return parse
