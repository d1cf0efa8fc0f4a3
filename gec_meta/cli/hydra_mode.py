"""Hydra's run mode without composing the config twice.

Hydra 1.3's ``@hydra.main`` composes the whole config once only to read ``hydra.mode``
(``Hydra.get_mode``, with the overrides, in ``_run_hydra``) and then composes it again for the
run.  Composing gec-meta's config tree costs ~0.2 s of CPU, a fifth of a job that finds its
result already there and a large part of every short job.  ``hydra.mode`` is ``None``
(Hydra's default, ``HydraConf.mode``) unless an override or a config sets it; no config that
gec-meta ships does (``tests/test_hydra_mode.py``).  So where the command can only compose the
shipped configs with overrides that do not name ``hydra.mode``, the first composition is
known to give ``None`` and :func:`known_mode` skips it; anything else (a config folder of the
user's, ``hydra.searchpath``, an experiment config, another primary config) keeps Hydra's own
``get_mode``.  Hydra then runs exactly as after its own ``get_mode`` returned ``None``:
``--multirun`` (``-m``) or a plain run, decided by the command line.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Sequence

# Options that bring configs other than the shipped ones (or another primary config).
_CONFIG_OPTIONS = ("--config-dir", "-cd", "--config-name", "-cn", "--config-path", "-cp", "--experimental-rerun")
# Override keys through which a value or a config could set hydra.mode: the key itself, config
# folders of the user's, and the experiment configs (whole-config presets; none sets it today,
# but an experiment is the natural place to ask for a sweep).
_MODE_KEYS = ("hydra.mode", "hydra.searchpath", "experiment")


def _key(override: str) -> str:
    """The config key of an override (``+x.y=1`` -> ``x.y``; ``~x`` -> ``x``)."""
    return override.split("=", 1)[0].lstrip("+~").split("@", 1)[0]


def mode_is_default(args: Sequence[str]) -> bool:
    """Whether a ``gec-meta-run`` command line composes only the shipped configs with overrides
    that cannot set ``hydra.mode`` (then Hydra's ``get_mode`` would return ``None``)."""
    for arg in args:
        if arg.startswith("-"):
            if arg.split("=", 1)[0] in _CONFIG_OPTIONS:
                return False
            continue
        key = _key(arg)
        if any(key == k or key.startswith(k + ".") or key.startswith(k + "/") for k in _MODE_KEYS):
            return False
    return True


@contextlib.contextmanager
def known_mode(args: Sequence[str]) -> Iterator[None]:
    """Within the block, Hydra's ``get_mode`` answers ``None`` without composing when
    :func:`mode_is_default` holds for ``args`` (the command line after the program name)."""
    if not mode_is_default(args):
        yield
        return
    from hydra._internal.hydra import Hydra

    original = Hydra.get_mode
    Hydra.get_mode = lambda self, config_name, overrides: None
    try:
        yield
    finally:
        Hydra.get_mode = original
