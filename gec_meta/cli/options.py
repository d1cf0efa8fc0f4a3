"""Options shared by the ``gec-meta`` subcommands (``score``, ``rank``, ``errant-types``,
``attribute``): how input files are read, and ``-m KEY=VALUE`` metric fields.

Its own module so that the subcommands' modules (:mod:`gec_meta.cli.attribute`) and the
dispatcher (:mod:`gec_meta.cli.main`) import it instead of each other.
"""

from __future__ import annotations

import argparse
import json
from typing import Sequence

from gec_meta.data.io import DEFAULT_UNICODE, UNICODE_MODES
from gec_meta.data.refsets import REF_FORMATS
from gec_meta.errors import ConfigError


def add_input_options(p: argparse.ArgumentParser) -> None:
    """``--ref-format`` and ``--unicode``: how the input files are read."""
    p.add_argument("--ref-format", default="auto", choices=list(REF_FORMATS),
                   help="auto (default): *.m2 and *.errant are M2, other names plain text; m2 or text: as said")
    p.add_argument("--unicode", default=DEFAULT_UNICODE, choices=list(UNICODE_MODES),
                   help="nfc+cf (default): read every text in Unicode NFC with format characters "
                        "(RLM, ZWSP, ZWJ, a BOM inside a file, ...) removed, reported once per file; raw: as it is")


def _parse_value(v: str):
    try:
        return json.loads(v)
    except ValueError:
        return v


def metric_options(pairs: Sequence[str]) -> dict:
    """``-m KEY=VALUE`` options as a dict (values parsed as JSON where they are JSON).

    Raises:
        ConfigError: an option without ``=`` or with an empty key.
    """
    out = {}
    for kv in pairs:
        key, eq, value = kv.partition("=")
        if not eq or not key.strip():
            raise ConfigError(f"-m {kv!r}: expected a metric field as KEY=VALUE, e.g. -m beta=1.0")
        out[key.strip()] = _parse_value(value)
    return out
