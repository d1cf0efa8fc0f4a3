"""Where gec-meta's Hydra configs live and how the library composes them (no command line).

The configs are the top-level ``conf/`` folder of the checkout, installed as the package
``gec_meta.conf``; Hydra finds them through ``pkg://gec_meta.conf`` both in a checkout
(editable install) and in an installed wheel, so nothing is read from the source tree.
"""

from __future__ import annotations

import dataclasses
import functools
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

#: The package that holds ``config.yaml`` and the config groups.
CONFIG_MODULE = "gec_meta.conf"
CONFIG_PATH = f"pkg://{CONFIG_MODULE}"


def config_root() -> Path:
    """The installed config folder (a real directory: gec-meta is never imported from a zip)."""
    return Path(str(resources.files(CONFIG_MODULE)))


def group_options(group: str) -> list[str]:
    """The option names of config group ``group`` (``metric`` -> ``['bartscore', ...]``)."""
    return sorted(p.stem for p in (config_root() / group).glob("*.yaml"))


#: Types of default values that a config node can hold as they are.
_PLAIN = (str, int, float, bool, type(None))


def defaults_node(cls: type, implied: dict | None = None) -> dict:
    """``_target_`` and every field default of dataclass ``cls`` that a YAML can hold, then the
    ``implied`` options: the schema a config of ``cls`` extends, so that a YAML states only
    what differs and every option can still be overridden as ``metric.<field>=...``."""
    node: dict = {"_target_": f"{cls.__module__}.{cls.__qualname__}"}
    if getattr(cls, "instantiate_recursively", True) is False:
        # the class receives its nested config nodes as configs (an ensemble passes them on to
        # the members that use them) instead of objects built when the config is instantiated
        node["_recursive_"] = False
    for f in dataclasses.fields(cls):
        # Factories make per-instance values (state, nonces): never frozen into a config.
        if f.init and not f.name.startswith("_") and isinstance(f.default, _PLAIN):
            node[f.name] = f.default
    node.update(implied or {})
    return node


_REGISTERED: set[str] = set()


def register_configs(metrics: Iterable[str] | None = None) -> None:
    """Register what ``config.yaml`` and the group configs need (idempotent).

    * the resolver ``${gec_meta_data:}``: the data directory (``$GEC_META_DATA``, ``./data``, or
      the per-user folder; :func:`gec_meta.data.fetch.default_data_dir`);
    * the schema nodes ``schema/metric/<name>`` and ``schema/aggregation/<name>``, generated from
      the dataclass defaults (:func:`defaults_node`): the one place a default is written is the
      dataclass; ``conf/metric/*.yaml`` extend their schema with ``/schema/metric/<name>@_here_``.

    Args:
        metrics: the metric names whose schema is needed (None: all).  Building a schema
            imports the metric's module, so the Python API registers only what it composes.
    """
    from hydra.core.config_store import ConfigStore
    from omegaconf import OmegaConf

    from gec_meta.data.fetch import default_data_dir
    from gec_meta.meta.aggregation import AGGREGATIONS
    from gec_meta.metrics.registry import implied_options, metric_class, metric_names

    store = ConfigStore.instance()
    if not OmegaConf.has_resolver("gec_meta_data"):
        OmegaConf.register_new_resolver("gec_meta_data", lambda: str(default_data_dir()))
        for name, cls in AGGREGATIONS.items():
            store.store(group="schema/aggregation", name=name, node=defaults_node(cls))
    for name in metric_names() if metrics is None else metrics:
        if name not in _REGISTERED:
            store.store(group="schema/metric", name=name,
                        node=defaults_node(metric_class(name), implied_options(name)))
            _REGISTERED.add(name)


@functools.lru_cache(maxsize=None)
def compose(overrides: tuple[str, ...] = ()):
    """The composed root config with Hydra ``overrides`` (cached; treat it as read-only).

    Registers the schemas of the metrics named in ``overrides`` (and the default ``errant``);
    a composition that needs another (an experiment config naming its metric) registers all.
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module
    from hydra.errors import HydraException

    from gec_meta.metrics.registry import metric_names

    named = {v for o in overrides if o.split("=", 1)[0].lstrip("+~") == "metric" and "=" in o
             for v in o.split("=", 1)[1].split(",")}
    register_configs([n for n in named | {"errant"} if n in metric_names()])
    with initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        try:
            return hydra_compose("config", overrides=list(overrides))
        except HydraException as exc:
            if "schema/metric" not in str(exc):
                raise
        register_configs()
        return hydra_compose("config", overrides=list(overrides))


def compose_anywhere(overrides: Sequence[str]):
    """:func:`compose` outside a Hydra app; inside one (``gec-meta-run``), Hydra's own compose
    with the app's config search path (a second ``initialize`` is not allowed there).  Used to
    build configs from within a config: the members of ``metric=ensemble``."""
    from hydra.core.global_hydra import GlobalHydra

    if not GlobalHydra.instance().is_initialized():
        return compose(tuple(overrides))
    from hydra import compose as hydra_compose

    register_configs()
    return hydra_compose("config", overrides=list(overrides))


def check_overrides(overrides: Sequence[str], flag: str = "") -> None:
    """Hydra overrides ``GROUP=OPTION`` must name an existing option of a config group (Hydra's
    own message for an unknown option of a group that the metric interpolates, ``encoder=nosuch``,
    would name the metric instead).

    Args:
        flag: how the caller's user wrote them (``"-c "`` on the command line), for messages.

    Raises:
        ConfigError: an override without ``=``, or an unknown option, naming the group's options.
    """
    from gec_meta.errors import ConfigError

    groups = {p.name for p in config_root().iterdir() if p.is_dir() and not p.name.startswith("_")}
    for kv in overrides:
        key, eq, value = kv.partition("=")
        if not eq or not key.strip("+~ "):
            raise ConfigError(f"{flag}{kv!r}: expected a Hydra override KEY=VALUE, e.g. {flag}encoder=minilm")
        group = key.lstrip("+~")
        if group in groups and value and group_options(group) and value not in group_options(group):
            raise ConfigError(f"{flag}{kv}: unknown {group} {value!r}; available: {', '.join(group_options(group))}")


def compose_group(group: str, name: str, overrides: Sequence[str] = (), flag: str = ""):
    """The config node of option ``name`` of ``group``; unknown names (of this group or of the
    groups that ``overrides`` name) are a ``ConfigError``."""
    from hydra.errors import MissingConfigException

    from gec_meta.errors import ConfigError

    check_overrides(overrides, flag)
    try:
        cfg = compose((f"{group}={name}", *overrides))
    except MissingConfigException as exc:
        raise ConfigError(f"unknown {group} {name!r}; available: {group_options(group)}") from exc
    return cfg[group]


# --------------------------------------------------------------------------- valid settings
# Constraints are declared next to the dataclass fields they constrain
# (``field(default=..., metadata=valid(...))``) and checked in one place, :func:`check_fields`,
# which the base classes call from ``__post_init__`` (Metric, Aggregation/TrueSkill, Task).


@dataclasses.dataclass(frozen=True)
class Valid:
    """A field's valid range: ``test(value)`` is True for valid values; ``text`` names the range
    in the error message (``metric.beta must be > 0, got -1``)."""

    test: object
    text: str


def _is_int(x) -> bool:
    import numbers

    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _is_real(x) -> bool:
    import math
    import numbers

    return isinstance(x, numbers.Real) and not isinstance(x, bool) and math.isfinite(x)


def valid(constraint: Valid, optional: bool = False) -> dict:
    """Field metadata declaring ``constraint`` (``optional``: None is valid too)."""
    return {"valid": constraint, "optional": optional}


def finite() -> Valid:
    return Valid(_is_real, "a finite number")


def positive() -> Valid:
    return Valid(lambda x: _is_real(x) and x > 0, "a number > 0")


def non_negative() -> Valid:
    return Valid(lambda x: _is_real(x) and x >= 0, "a number >= 0")


def open_interval(lo: float, hi: float) -> Valid:
    return Valid(lambda x: _is_real(x) and lo < x < hi, f"a number in ({lo:g}, {hi:g})")


def integer(lo: int | None = None, zero_or_at_least: int | None = None) -> Valid:
    """An int (not a bool) >= ``lo``; or 0 or >= ``zero_or_at_least``."""
    if zero_or_at_least is not None:
        return Valid(lambda x: _is_int(x) and (x == 0 or x >= zero_or_at_least),
                     f"an integer: 0 (off) or >= {zero_or_at_least}")
    if lo is None:
        return Valid(_is_int, "an integer")
    return Valid(lambda x: _is_int(x) and x >= lo, f"an integer >= {lo}")


def check_fields(obj, prefix: str) -> None:
    """Raise :class:`gec_meta.errors.ConfigError` naming ``<prefix>.<field>`` and its valid range
    for the first field of dataclass ``obj`` whose value its ``valid`` metadata rejects."""
    from gec_meta.errors import ConfigError

    for f in dataclasses.fields(obj):
        constraint = f.metadata.get("valid")
        if constraint is None:
            continue
        value = getattr(obj, f.name)
        if value is None and f.metadata.get("optional"):
            continue
        if not constraint.test(value):
            text = constraint.text + (" or null" if f.metadata.get("optional") else "")
            raise ConfigError(f"{prefix}.{f.name} must be {text}, got {value!r}")
