"""Human sentence rankings in Appraise XML (GJG15 ``judgments.xml``, SEEDA ``judgments_*.xml``).

Each ``<ranking-item src-id=.. user=..>`` ranks up to five distinct outputs (rank 1 = best, ties
allowed); a ``system`` attribute listing several names means those systems produced the same
output, shown once, and is expanded here.  ``src-id`` is 0-based in GJG15 and 1-based in SEEDA
(``index_base``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from gec_meta.data.io import read_bytes
from gec_meta.errors import DataError


@dataclass(frozen=True)
class RankingItem:
    """One judge's ranking of the outputs for one source sentence.

    Attributes:
        line: 0-based line of the full corpus the item judges.
        annotator: the judge (``user`` attribute).
        ranks: mapping system name -> rank (1 = best), collapsed groups expanded.
        item_id: the ``id`` attribute.
        displayed: the groups as shown to the judge: (systems with one identical output, rank).
    """

    line: int
    annotator: str
    ranks: tuple[tuple[str, int], ...]
    item_id: str = ""
    displayed: tuple[tuple[tuple[str, ...], int], ...] = ()




def read_judgments(path: str | Path, index_base: int) -> tuple[RankingItem, ...]:
    """Read an Appraise ranking XML file.

    Args:
        path: the XML file.
        index_base: 0 if ``src-id`` counts lines from 0 (GJG15), 1 if from 1 (SEEDA).

    Returns:
        the ranking items in file order, shape (num_items,).  Skipped items (no
        ``<translation>``) are kept with empty ``ranks``.
    """
    path = Path(path)
    raw = read_bytes(path)
    from gec_meta.cache import Codec, cached_parse, source_tag

    # The parse cache holds data only: the items as JSON values, rebuilt by _from_data.
    return cached_parse(source_tag(__name__, "judgments", str(index_base)), raw,
                        lambda: _parse_judgments(raw, path, index_base),
                        Codec("ranking-items", _to_data, _from_data))


def _to_data(items: Sequence[RankingItem]) -> dict:
    """Ranking items as JSON values: every field of :class:`RankingItem`, in order (``tests/
    test_cache.py`` checks them against the dataclass), ``ranks`` and ``displayed`` as indices
    into tables of their distinct entries (a few hundred (system, rank) pairs serve thousands
    of items: decoding builds each once, twice as fast as building every one)."""
    pairs: dict = {}
    shown: dict = {}
    rows = [[i.line, i.annotator, [pairs.setdefault(p, len(pairs)) for p in i.ranks], i.item_id,
             [shown.setdefault(d, len(shown)) for d in i.displayed]] for i in items]
    return {"pairs": list(pairs), "displayed": list(shown), "items": rows}


def _from_data(data: dict) -> tuple[RankingItem, ...]:
    pair = [tuple(p) for p in data["pairs"]].__getitem__
    shown = [(tuple(group), rank) for group, rank in data["displayed"]].__getitem__
    return tuple(RankingItem(line, annotator, tuple(map(pair, ranks)), item_id, tuple(map(shown, displayed)))
                 for line, annotator, ranks, item_id, displayed in data["items"])


def _parse_judgments(raw: bytes, path: Path, index_base: int) -> tuple[RankingItem, ...]:
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise DataError(f"malformed XML: {exc}", path, line) from None
    except (LookupError, ValueError) as exc:  # an unknown encoding declared in the XML header
        raise DataError(f"unreadable XML: {exc}", path, 1) from None
    items: list[RankingItem] = []
    for elem in root.iter("ranking-item"):
        item_id = elem.get("id", "?")
        src = elem.get("src-id")
        if src is None:
            raise DataError(f"<ranking-item id={item_id}> has no src-id", path)
        try:
            line = int(src) - index_base
        except ValueError:
            raise DataError(f"<ranking-item id={item_id}> has non-integer src-id {src!r}", path) from None
        ranks: list[tuple[str, int]] = []
        displayed: list[tuple[tuple[str, ...], int]] = []
        seen: set[str] = set()
        for tr in elem.iter("translation"):
            try:
                rank = int(tr.get("rank", ""))
            except ValueError:
                raise DataError(
                    f"<ranking-item id={item_id}>: translation without integer rank", path
                ) from None
            group = tuple(tr.get("system", "").split())
            for system in group:
                if system in seen:
                    raise DataError(f"<ranking-item id={item_id}> ranks {system} twice", path)
                seen.add(system)
                ranks.append((system, rank))
            displayed.append((group, rank))
        items.append(RankingItem(line, elem.get("user", ""), tuple(ranks), item_id, tuple(displayed)))
    if not items:
        raise DataError("no <ranking-item> elements", path)
    return tuple(items)


def rank_matrix(items: Sequence[RankingItem], systems: Sequence[str]) -> np.ndarray:
    """Ranks as a matrix.

    Args:
        items: shape (num_items,).
        systems: the system order, shape (S,).  Systems ranked in an item but not listed here
            are dropped (e.g. INPUT in SEEDA Base).

    Returns:
        float array (num_items, S): the rank, NaN where the system was not ranked.
    """
    index = {s: i for i, s in enumerate(systems)}
    out = np.full((len(items), len(systems)), np.nan)
    for k, item in enumerate(items):
        for system, rank in item.ranks:
            i = index.get(system)
            if i is not None:
                out[k, i] = rank
    return out


def pairwise_wins(ranks: np.ndarray) -> np.ndarray:
    """Count pairwise wins from rank matrices.

    Args:
        ranks: shape (num_items, S), NaN = not ranked.

    Returns:
        int array (S, S): wins[i, j] = number of items where i was ranked strictly better
        (lower rank) than j.  Ties and unranked pairs count for neither.
    """
    S = ranks.shape[1]
    wins = np.zeros((S, S), dtype=np.int64)
    for row in ranks:
        r = row[:, None]
        c = row[None, :]
        wins += (r < c)  # NaN comparisons are False
    return wins
