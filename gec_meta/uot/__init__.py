"""UOT-ERRANT (Goto et al. 2025): edit vectors compared by unbalanced optimal transport.

* :mod:`.vectors` - edit vectors (Eq. 1), batched and cached;
* :mod:`.transport` - masses, costs and the UOT plan (Eqs. 4, 7-9) with POT;
* :mod:`.metric` - :class:`UOTErrant` / :class:`SentUOTErrant` on the ERRANT edit core;
* :mod:`.search` - the lambda search on GJG15 (§4.1) and its collation CLI;
* :mod:`.inspect` - transport-plan inspection CLI and heatmap (Figure 4).
"""

from .metric import Alignment, SentUOTErrant, UOTErrant
from .transport import (
    UOTSettings, cost_matrix, edit_masses, transport_counts, transport_plan, transport_plans_batched,
)
from .vectors import EditVectorizer, apply_edits, edit_sentences

__all__ = [
    "Alignment", "SentUOTErrant", "UOTErrant", "UOTSettings", "cost_matrix", "edit_masses",
    "transport_counts", "transport_plan", "transport_plans_batched", "EditVectorizer", "apply_edits", "edit_sentences",
]
