"""The edit sets of texts in their language: the one entry point through which every metric,
reference set and analysis gets edits (:func:`errant_edit_sets`).

It picks the language's extractor (:func:`gec_meta.edits.languages.edit_extractor`: ERRANT for
English, ChERRANT for Chinese, the language-independent one otherwise), drops ERRANT's
pseudo-edits and, for edit matching, keeps each edit of a text once.  It lives apart from
:mod:`gec_meta.edits.extract` (ERRANT's extractor), which the dispatch imports.
"""

from __future__ import annotations

import warnings
from typing import Sequence

from gec_meta.edits.edit import Edit
from gec_meta.edits.extract import _ORIGIN, SentenceTooLong, significant, unique_edits
from gec_meta.errors import InputWarning

_REPEATS_REPORTED: set[str] = set()


def _report_repeats(texts: Sequence[Sequence[str]], k: int, lines: list[int], example: Edit) -> None:
    """Warn once per file or system that ERRANT extracted an edit twice (counted once)."""
    n = lines[0]
    located = None
    locate = _ORIGIN.get()
    if locate is not None:
        located = locate(texts[k][n], n)
    where, group = located or (f"text set #{k}, line {n + 1}", f"text set #{k}")
    if group in _REPEATS_REPORTED:
        return
    _REPEATS_REPORTED.add(group)
    warnings.warn(
        f"{where}: ERRANT extracted the edit ({example.start}, {example.end}, {example.correction!r}) twice; "
        f"{len(lines)} sentence(s) of it have a repeated edit, each counted once (the edits of a text are a set, "
        "as errant_compare keys them)", InputWarning, stacklevel=3,
    )


def errant_edit_sets(sources: Sequence[str], texts: Sequence[Sequence[str]],
                     threads: int | None = None, unique: bool = False,
                     language: str = "en") -> list[list[tuple[Edit, ...]]]:
    """ERRANT edits (noop/UNK dropped: :func:`significant`) of every text of every correction set;
    for another ``language``, the edits of its extractor (:func:`gec_meta.edits.languages.edit_extractor`:
    ChERRANT's for ``zh``).

    Args:
        sources: shape (N,), tokenised.
        texts: shape (T, N): hypotheses or references (tokenised text).
        threads: as :meth:`ErrantExtractor.extract`.
        unique: each edit of a text once (:func:`unique_edits`), with one warning per file or
            system where ERRANT extracted an edit twice (named through :func:`text_origins`).
        language: ISO 639-1 code of the texts.  Chinese: with ``unique``, the edits of every
            cheapest ChERRANT alignment, each once (what edit matching reads from ChERRANT's M2);
            without, the first alignment's (a partition of the source: CLEME, GoToScorer).

    Returns:
        shape (T, N).
    """
    N = len(sources)
    try:
        from gec_meta.edits.languages import edit_extractor

        flat = edit_extractor(language).extract([(sources[n], t[n]) for t in texts for n in range(N)], threads)
        if language == "zh":  # ChERRANT: every cheapest alignment's edits, or (not unique) the first's
            from gec_meta.edits.cherrant import first_alignment

            flat = flat if unique else [first_alignment(e) for e in flat]
    except SentenceTooLong as exc:
        k, n = divmod(exc.pair, N)
        raise exc.located(f"text set #{k}, sentence #{n} (line {n + 1}): ") from None
    if not unique:
        return [[significant(flat[k * N + n]) for n in range(N)] for k in range(len(texts))]
    out = []
    for k in range(len(texts)):
        row, repeats, example = [], [], None
        for n in range(N):
            edits = significant(flat[k * N + n])
            kept = unique_edits(edits)
            if len(kept) < len(edits):
                repeats.append(n)
                if example is None:
                    keys = [e.key for e in edits]
                    example = next(e for e in kept if keys.count(e.key) > 1)
            row.append(kept)
        if repeats and language == "en":  # elsewhere repeats are expected (ChERRANT's alignments)
            _report_repeats(texts, k, repeats, example)
        out.append(row)
    return out
