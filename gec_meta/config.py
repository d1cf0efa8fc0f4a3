"""Where gec-meta's Hydra configs live and how the library composes them (no command line).

The configs are the top-level ``conf/`` folder of the checkout, installed as the package
``gec_meta.conf``; Hydra finds them through ``pkg://gec_meta.conf`` both in a checkout
(editable install) and in an installed wheel, so nothing is read from the source tree.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Sequence

#: The package that holds ``config.yaml`` and the config groups.
CONFIG_MODULE = "gec_meta.conf"
CONFIG_PATH = f"pkg://{CONFIG_MODULE}"


def config_root() -> Path:
    """The installed config folder (a real directory: gec-meta is never imported from a zip)."""
    return Path(str(resources.files(CONFIG_MODULE)))


def group_options(group: str) -> list[str]:
    """The option names of config group ``group`` (``metric`` -> ``['bartscore', ...]``)."""
    return sorted(p.stem for p in (config_root() / group).glob("*.yaml"))


def register_resolvers() -> None:
    """OmegaConf resolvers used by ``config.yaml`` (idempotent).

    ``${gec_meta_data:}``: the data directory (``$GEC_META_DATA``, ``./data``, or the per-user
    folder; :func:`gec_meta.data.fetch.default_data_dir`).
    """
    from omegaconf import OmegaConf

    from gec_meta.data.fetch import default_data_dir

    if not OmegaConf.has_resolver("gec_meta_data"):
        OmegaConf.register_new_resolver("gec_meta_data", lambda: str(default_data_dir()))


@functools.lru_cache(maxsize=None)
def compose(overrides: tuple[str, ...] = ()):
    """The composed root config with Hydra ``overrides`` (cached; treat it as read-only)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module

    register_resolvers()
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        return hydra_compose("config", overrides=list(overrides))


def compose_group(group: str, name: str, overrides: Sequence[str] = ()):
    """The config node of option ``name`` of ``group``; unknown names are a ``ConfigError``."""
    from hydra.errors import MissingConfigException

    from gec_meta.errors import ConfigError

    try:
        cfg = compose((f"{group}={name}", *overrides))
    except MissingConfigException as exc:
        raise ConfigError(f"unknown {group} {name!r}; available: {group_options(group)}") from exc
    return cfg[group]
