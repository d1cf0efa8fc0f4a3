"""Each of a ``gec-meta-run`` command's Hydra compositions done once.

Composing gec-meta's config tree costs ~0.15-0.2 s of CPU: a fifth of a run that finds its
result already there, and most of each job of a warm sweep.  Hydra 1.3 composes the same
config twice in two places; :func:`compose_once` (around ``@hydra.main``, in
:func:`gec_meta.cli.run.main`) removes the repeat, with the same configs in the end:

* **The run mode.**  ``_run_hydra`` composes the whole config once only to read ``hydra.mode``
  (``Hydra.get_mode``) and then composes it again for the run.  ``hydra.mode`` is ``None``
  (Hydra's default, ``HydraConf.mode``) unless an override or a config sets it, and no config
  that gec-meta ships does (``tests/test_hydra_once.py``).  So where the command composes only
  the shipped configs with overrides that cannot set it (:func:`mode_is_default`), the answer is
  known to be ``None`` and ``get_mode`` returns it without composing; anything else (a config
  folder of the user's, ``hydra.searchpath``, an experiment config, another primary config,
  ``hydra.mode=...``) keeps Hydra's own ``get_mode``.  Hydra then goes on exactly as after its
  own ``None``: ``--multirun`` (``-m``) or a plain run, as the command line says.
* **A sweep's jobs.**  The sweeper composes every job's config before launching any (so that
  a bad override fails the sweep before a job runs: ``Sweeper.validate_batch_is_legal``), and the
  launcher composes each again to run it (``load_sweep_config`` with the same master config and
  overrides, so the same config).  Within the block the first composition is kept and the
  launcher gets a deep copy of it (~8 ms against ~150 ms), which it then numbers as before.
  (One difference: a config file edited while a sweep runs no longer reaches the sweep's later
  jobs; each job runs the config that was validated, as the whole sweep was checked with it.)

And what every composition repeats, reading the same config files, is parsed once a text
(:func:`gec_meta.config.parsed_yaml_once`).
"""

from __future__ import annotations

import contextlib
import copy
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
def compose_once(args: Sequence[str]) -> Iterator[None]:
    """Within the block, Hydra's ``get_mode`` answers ``None`` without composing where
    :func:`mode_is_default` holds for ``args`` (the command line after the program name), a
    sweep job's config composed to validate the sweep is reused (copied) to run the job, and
    config files are parsed once a text."""
    from hydra._internal.config_loader_impl import ConfigLoaderImpl
    from hydra._internal.hydra import Hydra

    from gec_meta.config import parsed_yaml_once

    get_mode, load_sweep_config = Hydra.get_mode, ConfigLoaderImpl.load_sweep_config
    # (loader, master config, overrides) -> (loader, master config, composed config): the key's
    # objects are kept alive with the entry, so their ids are not reused while the block runs.
    composed: dict[tuple, tuple] = {}

    def load_sweep_config_once(self, master_config, sweep_overrides):
        key = (id(self), id(master_config), tuple(sweep_overrides))
        hit = composed.get(key)
        if hit is None:
            hit = composed[key] = (self, master_config, load_sweep_config(self, master_config, sweep_overrides))
        return copy.deepcopy(hit[2])

    if mode_is_default(args):
        Hydra.get_mode = lambda self, config_name, overrides: None
    ConfigLoaderImpl.load_sweep_config = load_sweep_config_once
    try:
        with parsed_yaml_once():
            yield
    finally:
        Hydra.get_mode, ConfigLoaderImpl.load_sweep_config = get_mode, load_sweep_config
        composed.clear()
