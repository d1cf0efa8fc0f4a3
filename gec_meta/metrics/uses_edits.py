"""Metrics whose statistics come from the edits of an extractor: its identity in their cache key.

Apart from :mod:`.base` so that only these metrics import the extractors
(:mod:`gec_meta.edits.languages`): every module a metric imports, at module level or inside a
function, counts in the code version of its statistics (:mod:`gec_meta.cache.code`), so an edit
of ERRANT's code must not make BERTScore's or GLEU's statistics cold.
"""

from __future__ import annotations

from typing import ClassVar


class UsesEdits:
    """Mixin of a :class:`~gec_meta.metrics.base.Metric` whose statistics depend on edits from
    its language's extractor (:func:`gec_meta.edits.languages.edit_extractor`): the edit metrics
    (:class:`gec_meta.metrics.edit.core.PRFMetric`) and LLM-E."""

    uses_edits: ClassVar[bool] = True

    def extractor_identity(self) -> str:
        """The edit extractor's cache namespace for the metric's language (its libraries'
        versions, code and, for ChERRANT, its resources' content), so statistics computed from
        other edits are never reused; ``missing`` when ChERRANT's resources are absent (then
        nothing can have been extracted: statistics from given edits alone)."""
        from gec_meta.edits.languages import edit_extractor
        from gec_meta.errors import MissingDataError

        try:
            return edit_extractor(self._language).namespace()
        except MissingDataError:
            return "missing"
