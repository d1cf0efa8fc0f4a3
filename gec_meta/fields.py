"""Valid settings of dataclass fields: the range of every config key, declared next to its
field (``field(default=..., metadata=valid(...))``) and checked in one place,
:func:`check_fields`, which the base classes call from ``__post_init__`` (Metric,
Aggregation/TrueSkill, Task, the LLM backends).

Its own module, importing nothing of gec_meta but :mod:`gec_meta.errors`: every component
module declares its fields with it, and :mod:`gec_meta.config` (which composes configs and
imports the registries of those components) must not be imported by them.
"""

from __future__ import annotations

import dataclasses

# Constraints are declared next to the dataclass fields they constrain
# (``field(default=..., metadata=valid(...))``) and checked in one place, :func:`check_fields`,
# which the base classes call from ``__post_init__`` (Metric, Aggregation/TrueSkill, Task).
# Fields declared ``bool``, ``int`` or ``float`` (optionally ``| None``) are type-checked there
# even without a declared range: ``cache=off`` or ``metric.dry_run=maybe`` (strings) are errors,
# not truthy values.


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


def valid(constraint: Valid, optional: bool = False, key: str | None = None) -> dict:
    """Field metadata declaring ``constraint`` (``optional``: None is valid too; ``key``: the
    config key that sets the field, when it is not ``<prefix>.<field>``, e.g. ``cache`` for
    ``Task.use_cache``)."""
    return {"valid": constraint, "optional": optional, "key": key}


def finite() -> Valid:
    return Valid(_is_real, "a finite number")


def positive() -> Valid:
    return Valid(lambda x: _is_real(x) and x > 0, "a number > 0")


def non_negative() -> Valid:
    return Valid(lambda x: _is_real(x) and x >= 0, "a number >= 0")


def open_interval(lo: float, hi: float) -> Valid:
    return Valid(lambda x: _is_real(x) and lo < x < hi, f"a number in ({lo:g}, {hi:g})")


def integer(lo: int | None = None, zero_or_at_least: int | None = None, hi: int | None = None) -> Valid:
    """An int (not a bool) >= ``lo`` (and <= ``hi``); or 0 or in [``zero_or_at_least``, ``hi``].

    ``hi`` bounds counts that set the amount of work (samples, permutations, iterations): a
    typo such as an extra digit must be an error, not hours of computation or a MemoryError.
    """
    def within(x, low) -> bool:
        return _is_int(x) and (low is None or x >= low) and (hi is None or x <= hi)

    bounds = [b for b in (None if lo is None else f">= {lo}", None if hi is None else f"<= {hi}") if b]
    if zero_or_at_least is not None:
        return Valid(lambda x: x == 0 and _is_int(x) or within(x, zero_or_at_least),
                     f"an integer: 0 (off) or >= {zero_or_at_least}" + ("" if hi is None else f" and <= {hi}"))
    return Valid(lambda x: within(x, lo), "an integer" + (" " + " and ".join(bounds) if bounds else ""))


def boolean() -> Valid:
    return Valid(lambda x: isinstance(x, bool), "a boolean (true or false)")


def one_of(*values: str) -> Valid:
    return Valid(lambda x: isinstance(x, str) and x in values, f"one of {list(values)}")


def integer_list(lo: int) -> Valid:
    """A list of integers >= ``lo`` (not a single number: ``meta_eval.top_ks=[5]``, not ``5``)."""
    from collections.abc import Sequence

    return Valid(lambda x: isinstance(x, Sequence) and not isinstance(x, str) and all(_is_int(k) and k >= lo for k in x),
                 f"a list of integers >= {lo} (e.g. [{lo + 3}, {lo + 2}])")


def _is_number(x) -> bool:
    import numbers

    return isinstance(x, numbers.Real) and not isinstance(x, bool)


#: The checks of fields declared with these types and no ``valid`` metadata.
_TYPED = {"bool": boolean(), "int": integer(), "float": Valid(_is_number, "a number")}


def _declared(f: dataclasses.Field) -> tuple[Valid | None, bool]:
    """(constraint, None allowed) of a field: its ``valid`` metadata, else its declared type
    when that is ``bool``, ``int`` or ``float`` (or one of them ``| None``)."""
    if "valid" in f.metadata:
        return f.metadata["valid"], f.metadata.get("optional", False)
    kind = f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
    parts = [p.strip() for p in kind.split("|")]
    optional = "None" in parts
    parts = [p for p in parts if p != "None"]
    if len(parts) == 1 and parts[0] in _TYPED:
        return _TYPED[parts[0]], optional
    return None, False


def check_value(f: dataclasses.Field, value, prefix: str) -> None:
    """Raise :class:`gec_meta.errors.ConfigError` naming the config key of field ``f``
    (``<prefix>.<field>``, or its declared ``key``) and its valid range if ``value`` is not in it."""
    from gec_meta.errors import ConfigError

    constraint, optional = _declared(f)
    if constraint is None or (value is None and optional) or constraint.test(value):
        return
    key = f.metadata.get("key") or (f"{prefix}.{f.name}" if prefix else f.name)
    text = constraint.text + (" or null" if optional else "")
    raise ConfigError(f"{key} must be {text}, got {value!r}")


def check_values(cls: type, values, prefix: str) -> None:
    """:func:`check_value` of every ``name: value`` of ``values`` against the field ``name`` of
    dataclass ``cls`` (before building it, e.g. a run's ``meta_eval`` keys before the data is
    loaded).  Names that are not fields are left to the caller."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, value in values.items():
        if name in fields:
            check_value(fields[name], value, prefix)


def check_fields(obj, prefix: str) -> None:
    """Raise :class:`gec_meta.errors.ConfigError` naming ``<prefix>.<field>`` and its valid range
    for the first field of dataclass ``obj`` whose value its ``valid`` metadata (or its declared
    ``bool``/``int``/``float`` type) rejects."""
    for f in dataclasses.fields(obj):
        check_value(f, getattr(obj, f.name), prefix)
