"""Where gec-meta's Hydra configs live and how the library composes them (no command line).

The configs are the top-level ``conf/`` folder of the checkout, installed as the package
``gec_meta.conf``; Hydra finds them through ``pkg://gec_meta.conf`` both in a checkout
(editable install) and in an installed wheel, so nothing is read from the source tree.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import threading
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

# The field checks live in gec_meta.fields; imported here too, where they were first written.
from gec_meta.fields import (Valid, _declared, boolean, check_fields, check_value, check_values,  # noqa: F401
                             finite, integer, integer_list, non_negative, one_of, open_interval, positive, valid)

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
        metrics: the metric names whose schema is needed (None: all; a name that is not a
            shipped metric, a plugin's, has none).  Building a schema imports the metric's
            module, so the Python API and ``gec-meta-run`` register only what they compose
            (:func:`metrics_chosen`).
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
    for name in metric_names() if metrics is None else [m for m in metrics if m in metric_names()]:
        if name not in _REGISTERED:
            store.store(group="schema/metric", name=name,
                        node=defaults_node(metric_class(name), implied_options(name)))
            _REGISTERED.add(name)


# Parsed YAML texts (text -> DictConfig/ListConfig; a few hundred kB for the shipped configs).
_PARSED_YAML: dict[str, object] = {}
# How many blocks of each patch of Hydra/OmegaConf below are open (the first installs it, the last
# one out restores the original), under one lock.
_PATCH_LOCK = threading.Lock()
_PATCH_DEPTH: dict[str, int] = {}


@contextlib.contextmanager
def _patch_while_open(name: str, install, restore):
    """Nestable, thread-safe: ``install()`` when the first block named ``name`` opens,
    ``restore()`` when the last one closes."""
    with _PATCH_LOCK:
        if not _PATCH_DEPTH.get(name):
            install()
        _PATCH_DEPTH[name] = _PATCH_DEPTH.get(name, 0) + 1
    try:
        yield
    finally:
        with _PATCH_LOCK:
            _PATCH_DEPTH[name] -= 1
            if not _PATCH_DEPTH[name]:
                restore()


@contextlib.contextmanager
def parsed_yaml_once():
    """Within the block, ``OmegaConf.load`` of a text stream parses each distinct text once and
    returns a deep copy of that parse (~0.3 ms against ~3 ms).  Hydra reads every config file
    of a composition through it, again for every composition (a sweep's jobs, the API's
    :func:`compose`), and PyYAML's pure-Python loader is ~27% of a composition of this config
    tree.  Keyed by the whole text, so a changed file is parsed again; paths and byte streams
    go to OmegaConf unchanged.  Nestable and thread-safe (the first block in installs it, the
    last one out restores OmegaConf's own ``load``).  Also opens :func:`shared_config_store`."""
    import copy
    import io

    from omegaconf import OmegaConf

    def install():
        original = OmegaConf.load

        def load(file_):
            if isinstance(file_, (str, Path)) or not hasattr(file_, "read"):
                return original(file_)
            text = file_.read()
            if not isinstance(text, str):  # a byte stream (a zipped package)
                return original(io.BytesIO(text))
            parsed = _PARSED_YAML.get(text)
            if parsed is None:
                parsed = _PARSED_YAML[text] = original(io.StringIO(text))
            return copy.deepcopy(parsed)

        load.original = original
        OmegaConf.load = load

    def restore():
        OmegaConf.load = OmegaConf.load.original

    with _patch_while_open("yaml", install, restore), shared_config_store():
        yield


def shared_config_store():
    """Within the block, Hydra's copy of its config repository (one per composition) shares the
    process's ``ConfigStore`` instead of deep-copying it.

    Hydra 1.3's ``CachingConfigRepository`` deep-copies its delegate repository "to avoid
    mutating it with initialize_sources()", and the structured-config source in it holds the
    ``ConfigStore`` singleton, so every composition copies every registered schema (Hydra's and
    gec-meta's metric schemas: ~25 ms of a ~160 ms composition once all are registered).  The
    source's only other fields are two strings, and ``ConfigStore.load`` deep-copies the node it
    hands out, so nothing can mutate the shared store through the copy; Hydra's main branch no
    longer keeps the store in the source at all (facebookresearch/hydra#2928: the live singleton
    read on each use), which is what the copy then does.  Nestable and thread-safe.

    The class patched is the one Hydra's compositions use (:func:`_structured_config_source`),
    not the one an import finds before Hydra's plugin scan."""
    try:
        with _PATCH_LOCK:  # one thread runs Hydra's plugin scan; the others wait and find its class
            source = _structured_config_source()
    except (ImportError, AttributeError, ValueError):  # another Hydra layout: its own copies, unchanged
        return contextlib.nullcontext()
    if vars(source).get("__deepcopy__", _share_store) is not _share_store:
        return contextlib.nullcontext()  # a Hydra with a copy rule of its own: keep it

    def install():
        source.__deepcopy__ = _share_store

    def restore():
        del source.__deepcopy__

    return _patch_while_open("store", install, restore)


def _structured_config_source() -> type:
    """The structured-config source class Hydra's config repositories are built with.

    Hydra scans its plugin packages once a process (``hydra.core.plugins.Plugins``, at its first
    composition) by *executing their modules again* (``spec.loader.exec_module`` on the module
    already in ``sys.modules``), which defines ``StructuredConfigSource`` anew and registers that
    new class: a class imported before the scan is never used after it (a patch on it was lost
    for every composition of ``run.py`` and of a test process, whose blocks open before their
    first composition).  So the scan runs first (what the first composition would do anyway) and
    the class comes from Hydra's sources registry."""
    from hydra._internal.sources_registry import SourcesRegistry
    from hydra.core.plugins import Plugins

    Plugins.instance()  # the one scan of the process; later calls return the same instance
    return SourcesRegistry.instance().resolve("structured")


def _share_store(self, memo):
    """``copy.deepcopy`` of a structured-config source within :func:`shared_config_store`: a
    shallow copy (its provider and path strings, and the live ``ConfigStore``)."""
    import copy

    twin = copy.copy(self)
    memo[id(self)] = twin
    return twin


@functools.lru_cache(maxsize=None)
def compose(overrides: tuple[str, ...] = ()):
    """The composed root config with Hydra ``overrides`` (cached; treat it as read-only).

    Registers the schemas of the metrics ``overrides`` name (:func:`metrics_chosen`: all when
    they cannot tell, e.g. an experiment config); a composition that needs another (a plugin's
    config extending an unnamed schema) registers all and composes again.

    Raises:
        ConfigError: an override choosing a config group option that is a path, not a name
            (:func:`check_override_options`; the other choices come from the configs' own
            defaults lists, which are code like the configs themselves).
    """
    from hydra import compose as hydra_compose
    from hydra import initialize_config_module
    from hydra.errors import HydraException

    register_configs(metrics_chosen(overrides))
    check_override_options(overrides)
    with parsed_yaml_once(), initialize_config_module(config_module=CONFIG_MODULE, version_base="1.3"):
        try:
            return auto_threads_as_null(hydra_compose("config", overrides=list(overrides)))
        except HydraException as exc:
            if "schema/metric" not in str(exc):
                raise
        register_configs()
        return auto_threads_as_null(hydra_compose("config", overrides=list(overrides)))


def auto_threads_as_null(cfg):
    """``threads=auto`` (also from the environment, through ``conf/config.yaml``) means
    ``threads=null``: the cores this job may use (:func:`gec_meta.parallel.default_threads`).
    Set in place on a composed config, so that every ``${threads}`` of a metric, encoder or
    scorer reads null; returns ``cfg``."""
    from omegaconf import OmegaConf

    if "threads" in cfg and OmegaConf.select(cfg, "threads", throw_on_missing=False) == "auto":
        cfg.threads = None
    return cfg


def is_option_name(option: str) -> bool:
    """An option of a config group is the name of a config file in that group's folder (of one
    of the search-path entries), never a path: ``metric=../dataset/seeda`` or
    ``hydra/job_logging=../../x`` would make Hydra compose, and the run instantiate (run the
    ``_target_`` of), a YAML from another group or from any folder."""
    return bool(option) and not any(c in option for c in "/\\") and not option.startswith(".")


def check_choices(choices) -> None:
    """Every chosen option of a config group (Hydra's ``hydra.runtime.choices``: group ->
    option; None for an unset optional group) must be an option name (:func:`is_option_name`).

    Raises:
        ConfigError: ``<group>=<option>: unknown <group> '<option>'`` with the available ones.
    """
    from gec_meta.errors import ConfigError

    for group, option in choices.items():
        if option is None or is_option_name(str(option)):
            continue
        known = group_options(group) if (config_root() / group).is_dir() else []
        listed = f"; available: {', '.join(known)}" if known else ""
        raise ConfigError(f"{group}={option}: unknown {group} {str(option)!r} (a config group option is a name, "
                          f"not a path){listed}")


def config_groups() -> set[str]:
    """The config groups of the shipped configs (``metric``, ``dataset``, ...)."""
    return {p.name for p in config_root().iterdir() if p.is_dir() and not p.name.startswith("_")}


#: Command-line flags of a Hydra app after which the metrics a run composes cannot be read
#: from its overrides (another primary config, the help and config printers).
_ALL_METRICS_FLAGS = ("--config-name", "-cn", "--config-path", "-cp", "--config-dir", "-cd", "--help", "-h",
                      "--hydra-help", "--cfg", "-c", "--info", "-i", "--resolve", "--package", "-p")


def metrics_chosen(args: Sequence[str]) -> set[str] | None:
    """The metric configs a ``gec-meta-run`` command line composes: the options its
    ``metric=...`` overrides choose (sweeps included) plus the default ``errant``; None when
    they cannot be told from the overrides (an ``experiment=`` config, a ``glob(...)`` sweep
    of metrics, another primary config, ``--cfg``/``--help``), i.e. every metric's schema is
    needed.  Lets the app register only those schemas (importing every metric module costs
    ~0.2 s a start: :func:`register_configs`)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    if any(a.split("=", 1)[0] in _ALL_METRICS_FLAGS for a in args if a.startswith("-")):
        return None
    parser = OverridesParser.create()
    named = {"errant"}
    for text in (a for a in args if "=" in a and not a.startswith("-")):
        try:
            override = parser.parse_override(text)
        except HydraException:
            continue  # Hydra reports it
        group = override.key_or_group
        if group == "experiment" or group.startswith("hydra.sweeper") or group == "hydra":
            return None
        if group != "metric" or override.is_delete():
            continue
        if override.is_choice_sweep() and override.value_type.name != "GLOB_CHOICE_SWEEP":
            named.update(str(v) for v in override.sweep_string_iterator())
        elif override.is_sweep_override():
            return None  # glob(...) of metric options
        else:
            named.add(str(override.value()))
    return named


def check_override_options(overrides: Sequence[str]) -> None:
    """:func:`check_choices` of the options that Hydra ``overrides`` choose for the shipped
    config groups and Hydra's own (``hydra/...``), sweeps included (``metric=m2,../x``), before
    anything is composed.  Overrides that do not parse are left to Hydra's own message.

    Raises:
        ConfigError: a group option that is a path.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    groups = config_groups()
    parser = OverridesParser.create()
    for text in overrides:
        try:
            override = parser.parse_override(text)
        except HydraException:
            continue
        group = override.key_or_group
        if override.is_delete() or not (group in groups or group.startswith("hydra/")):
            continue
        if override.is_choice_sweep() and override.value_type.name != "GLOB_CHOICE_SWEEP":
            values = list(override.sweep_string_iterator())
        elif override.is_sweep_override():
            continue  # glob(...) picks among the group's options; ranges are numbers
        else:
            values = [override.value()]
        for v in values:
            check_choices({group: None if v is None else str(v)})


def instantiate_as(node, kind: type, key: str, **kwargs):
    """``hydra.utils.instantiate(node, **kwargs)`` of the config at ``key``, which must build a
    ``kind`` (:func:`check_instance`)."""
    from hydra.utils import instantiate

    return check_instance(instantiate(node, **kwargs), kind, key, node)


def check_instance(obj, kind: type, key: str, node=None):
    """``obj``, built from the config at ``key``, if it is a ``kind``.

    Raises:
        ConfigError: one line naming the key, the ``_target_`` and what it built (a plugin
            class that does not subclass :class:`gec_meta.metrics.base.Metric` would otherwise
            fail later with an ``AttributeError``).
    """
    from gec_meta.errors import ConfigError

    if isinstance(obj, kind):
        return obj
    target = node.get("_target_") if node is not None and hasattr(node, "get") else None
    built = type(obj)
    raise ConfigError(f"{key}: _target_ {target!r} built a {built.__module__}.{built.__qualname__}, not a "
                      f"{kind.__module__}.{kind.__qualname__}"
                      + (" (a plugin metric subclasses it: README \"Your own metric\")" if key == "metric" else ""))


#: The ``hydra.searchpath=[...]`` override of the composition being instantiated outside a Hydra
#: app (:func:`searchpath_of`), so that the members of an ensemble are looked up where the
#: ensemble was (a plugin metric's config folder).
_SEARCHPATH: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("gec_meta_searchpath", default=())


def searchpath_overrides(overrides: Sequence[str]) -> tuple[str, ...]:
    """The ``hydra.searchpath=...`` overrides among ``overrides``."""
    return tuple(o for o in overrides if o.split("=", 1)[0].lstrip("+~").strip() == "hydra.searchpath")


@contextlib.contextmanager
def searchpath_of(overrides: Sequence[str]):
    """Within: configs composed from a config (:func:`compose_anywhere`, the members of
    ``metric=ensemble``) use the ``hydra.searchpath`` of ``overrides``, as the run's own
    composition did."""
    token = _SEARCHPATH.set(searchpath_overrides(overrides))
    try:
        yield
    finally:
        _SEARCHPATH.reset(token)


def _quoted(path: str) -> str:
    return "'" + path.replace("\\", "\\\\").replace("'", "\\'") + "'"


def compose_anywhere(overrides: Sequence[str]):
    """:func:`compose` outside a Hydra app; inside one (``gec-meta-run``), Hydra's own compose
    with the app's config search path (a second ``initialize`` is not allowed there).  Used to
    build configs from within a config: the members of ``metric=ensemble``.

    Either way the run's ``hydra.searchpath`` (a plugin metric's config folder) is searched too:
    inside the app the one it runs with, outside the one of :func:`searchpath_of`.
    """
    from hydra.core.global_hydra import GlobalHydra

    overrides = tuple(overrides)
    given = searchpath_overrides(overrides)
    if not GlobalHydra.instance().is_initialized():
        return compose((*(() if given else _SEARCHPATH.get()), *overrides))
    from hydra import compose as hydra_compose
    from hydra.core.hydra_config import HydraConfig

    if not given and HydraConfig.initialized() and HydraConfig.get().searchpath:
        paths = ", ".join(_quoted(str(p)) for p in HydraConfig.get().searchpath)
        overrides = (f"hydra.searchpath=[{paths}]", *overrides)
    register_configs()
    return auto_threads_as_null(hydra_compose("config", overrides=list(overrides)))


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
