"""Exceptions that name the file, line or config key that caused them."""

from __future__ import annotations

from pathlib import Path


class GecMetaError(Exception):
    """Base class of the harness's own errors (bad input, bad config, missing data)."""


class DataError(GecMetaError, ValueError):
    """Malformed or inconsistent input data.  The message names the file and line."""

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(where + message)
        self.path = None if path is None else Path(path)
        self.line = line


class MissingDataError(GecMetaError, FileNotFoundError):
    """A data file or directory is missing; the message says how to get it."""


class ConfigError(GecMetaError, ValueError):
    """An unknown or inconsistent configuration value; the message names the key."""


class InputWarning(UserWarning):
    """An input was read differently from its bytes (Unicode normalisation, duplicate edits
    collapsed); the message names the file and line (or the system and line)."""
