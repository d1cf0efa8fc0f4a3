"""Build ``manifest.tsv`` from the local data mirror (documents how the manifest was made).

Usage::

    python -m gec_meta.data.make_manifest [--mirror ../shared/data]
        [--out gec_meta/data/manifest.tsv]

Every file under the mirror except the ``README.md`` files (the mirror's notes, in no
repository) becomes one line
``path<TAB>sha256<TAB>bytes<TAB>source`` (sorted by path, no header). ``sha256`` and ``bytes``
are those of the file as stored in the mirror (decompressed for upstream ``.gz`` files).
``source`` is ``github:<owner>/<repo>@<commit>:<path-in-repo>`` (with ``.gz`` when the upstream
file is gzip-compressed) or ``derived`` for the two files that exist in no repository.
The files of :data:`OPTIONAL_FILES` (not in the mirror) follow, marked ``optional``.

The folder-to-repository mapping below follows the mirror's README (table at the top and the
"Source:" line of each section). Upstream paths were spot-checked against an index of the
public repositories; see ``RULES`` for the per-rule notes.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from gec_meta.data.fetch import DERIVED_TABLES
from gec_meta.data.verify import DEFAULT_MANIFEST, DERIVED, OPTIONAL, sha256_file

GRAMMATICAL = ("grammatical/evaluation", "08cdad84ffae07dfa167e3e45d77a96e0e01a160")
GECMETRICS = ("nusnlp/gecmetrics", "33069867516b4da9a59b5145d00250941fb00bec")
SEEDA = ("tmu-nlp/SEEDA", "0c6c07f98dcfab016f1169b680997f1f29ea0705")
REASSESS = ("keisks/reassess-gec", "054786a923b2635ce33240c580d18c908c9a49a9")
CNAP = ("cnap/grammaticality-metrics", "3c1cde1fb1b2b680c97eb2239ed35feab89d2a8a")
GMEG = ("grammarly/GMEG", "83be7cd0a94f6986028bd60ca7fa2c8ba036ad3b")
# CLEME v1.0 (Ye et al. 2023; tag v1.0 = commit 5fc7617, the mirror's cleme/README.md).
CLEME = ("THUKElab/CLEME", "5fc7617ef36c2134ae217f449e2a927e41f77039")
# Goto, Sakai & Watanabe (Findings of EMNLP 2025): the published attack outputs (mirror README
# section 8; the 8 files are byte-identical to this commit, the only one that changed them).
ATTACK = ("gotutiyan/attack-gec-metrics", "59cf0b132f24265c5953bb4005e5a94d87ec3308")
# Omelianchuk et al. (NAACL 2024), "Pillars of Grammatical Error Correction": the BEA-2019 dev
# outputs of the systems of the attack paper's BenchmarkPillars, its source and its M2.
PILLARS = ("grammarly/pillars-of-gec", "1014de0bc90faddba0032acb5dec762c6c85d2e1")
# Swedish and MultiGEC-2025 (mirror README sections 10.3, 10.4; issue 31 items 4-5): Östling et al.
# (LREC-COLING 2024) at the repository root (every ostling/ file checked equal to the commit's
# blob with git hash-object); MultiGEC-2025 ratings (repository root) and official results.
OSTLING = ("robertostling/gec-evaluation", "5ac81800f2b1a112c135ef4944f2867bbe3c4e9f")
MULTIGEC_ANNOTATION = ("emilia-piotrowska/MultiGEC-2025-annotation", "79b0fe70233447c1bdac2cfee6a687f98f71ac71")
MULTIGEC_RESULTS = ("spraakbanken/multigec-2025", "a9aa8b5a9eef95e1d47e305e838a5837096d6340")

# Chinese (data README section 10.1-10.2): RevisitCGEC (Wang et al.), MuCGEC dev and ChERRANT's
# resources (Zhang et al. 2022), CCL2022-CLTC track 3 YACLC dev; mirror paths = repository paths.
REVISITCGEC = ("wang136906578/RevisitCGEC", "b869ed1be825a0bbe90d5143fd6fecd4c4449e7e")
MUCGEC = ("HillZhang1999/MuCGEC", "39221934ee4ccf07801879136a75dd7e11319977")
CLTC = ("blcuicall/CCL2022-CLTC", "483480c16886cd5464d96c467643caf82867ed6d")
#: The files of those folders that the package reads (``dataset=revisit_cgec``, ChERRANT's
#: alignment) or its tests compare with (ChERRANT's char-level demo); the rest of the mirror's
#: copies (word-level samples, char_meta, READMEs) stay out of the manifest.
CHINESE_FILES = frozenset(
    ["revisitcgec/judgments.xml", "revisitcgec/sentence ids/mucgec_ids.txt", "revisitcgec/sentence ids/yaclc_ids.txt"]
    + [f"revisitcgec/system corrections/{s}.{sub}.txt" for s in ("bart", "char", "s2e", "spm", "t5", "word")
       for sub in ("mucgec", "yaclc")]
    + ["mucgec/data/MuCGEC/MuCGEC_dev.txt", "mucgec/scorers/ChERRANT/data/cilin.txt",
       "mucgec/scorers/ChERRANT/data/confusion_dict.txt", "mucgec/scorers/ChERRANT/samples/demo.hyp.para",
       "mucgec/scorers/ChERRANT/samples/demo.hyp.m2.char", "mucgec/scorers/ChERRANT/samples/demo.ref.m2.char",
       "cltc/datasets/track3/dev/yaclc-minimal_dev.para", "cltc/datasets/track3/dev/yaclc-fluency_dev.para"])
CHINESE_FOLDERS = ("revisitcgec/", "mucgec/", "cltc/")

#: Mirror files that exist in no repository (written from fetch.DERIVED_TABLES online).
DERIVED_PATHS = frozenset(DERIVED_TABLES)

#: Expected number of data files in the mirror. Its README's table says 1,024, but that table
#: predates the derived ``seeda/readme_metric_scores.tsv`` (seeda/ holds 637 files, not 636)
#: and the 16 CLEME example files of ``cleme/`` (issue 19 item 7).
EXPECTED_FILES = 1081 + 59 + len(CHINESE_FILES)  # + GMEG FCE (28) and Yahoo scores (4), the 8 attack files (issue 25); ostling/ 48, multigec/ 11 and the Chinese files (issue 31)

#: Files that are not in the mirror (data README section 8: public but not copied) and that only
#: ``dataset=bea19_dev_attack`` reads: path under ``pillars/`` = path in the repository; sha256
#: and bytes of the blobs at :data:`PILLARS` (each checked equal to ``git hash-object`` of the
#: commit's tree).  Written to the manifest as ``optional``.
OPTIONAL_FILES: tuple[tuple[str, str, int], ...] = (
    ("data/evaluation_sets/bea-dev.m2", "00585234d767dac4402edfb3f341996ee4d7889eff0be341f8d693c87a90ad34", 902771),
    ("data/evaluation_sets/bea-dev.txt", "b348bf05c3f6c7e048a7c4aef6708215b551870ef21f6827c0ed3fe47a8381a0", 443728),
    ("data/system_preds/ensemble_systems/ens_greco_on_m7___bea-dev.txt",
     "ccd9ee8c37ec7855fb37f526fb54eef11b4cb2060ed647b6438737b85ed79ed7", 446463),
    ("data/system_preds/ensemble_systems/ens_m7___bea-dev.txt",
     "5c898221f67d7b287f5be16418e1c9deb34159dbfe1063a183241a385d7df6fa", 446579),
    ("data/system_preds/ensemble_systems/ens_m9_with_greco_and_gpt___bea-dev.txt",
     "da3bc92bb2cc1062a094b6235de5eb83c9196ba379114cff0b25386827abd597", 446683),
    ("data/system_preds/single_systems/CTC-Copy___bea-dev.txt",
     "9b74fc0f2c2535c299088aa9f83748ed54efaa5dad1b74c52ff0a43a1a18158a", 446451),
    ("data/system_preds/single_systems/Chat-LLaMa-2-13B-FT___bea-dev.txt",
     "43831c7ea4c16b057a0a5400b7d08470264a97ae23705a7925f0bea2c060f84a", 447790),
    ("data/system_preds/single_systems/Chat-LLaMa-2-7B-FT___bea-dev.txt",
     "10f228beb2daa1adc0263783aaed618b428e8fa088da32133d4fbd4636f0745a", 447450),
    ("data/system_preds/single_systems/EditScorer___bea-dev.txt",
     "a6fc2e517082b848fe888116b5aef9e512291b418cd2b37ddfa6bc9b854154e9", 446460),
    ("data/system_preds/single_systems/GECToR-2024___bea-dev.txt",
     "b7db9c0190806c7a6d6dc1fa9bf76b0b6ee0407e8a9c40834a056d44062674ff", 445560),
    ("data/system_preds/single_systems/T5-11B___bea-dev.txt",
     "1d61f1eda9794039f75e4d8425f9ecc9b7c3839f489061e8e99584b3c418072b", 446398),
    ("data/system_preds/single_systems/UL2-20B___bea-dev.txt",
     "6483aac562b8ee527c2a7f168a78e2430b88bc5de8c50511f6f959080d33e466", 447647),
)


@dataclass(frozen=True)
class Rule:
    """Mirror folder ``local`` comes from ``repo`` at ``commit`` under ``upstream``.

    ``gz``: every file under this rule is gzip-compressed upstream (``.gz`` appended).
    """

    local: str
    repo: str
    commit: str
    upstream: str
    gz: bool = False


# Most specific prefix first (first match wins).
RULES: tuple[Rule, ...] = (
    # Chollampatt & Ng (2018) re-packaging: upstream `scores/...`, all *.gz (the repository
    # README's tree lists every file under scores/ with .gz; confirmed in the index).
    Rule("gjg15/nusnlp-gecmetrics/", *GECMETRICS, "", gz=True),
    # GJG15: `data/` dropped (judgments.xml, metrics/*, original/stats.txt confirmed in the
    # index; original/official_submissions/<SYSTEM> named by the repository README).
    Rule("gjg15/", *GRAMMATICAL, "data/"),
    # CoNLL-2014 test: `data/conll14st-test/` (refs/ confirmed in the index; the .m2 and
    # .tok.src are listed, uncompressed, in the repository README's tree).
    Rule("conll14/", *GECMETRICS, "data/conll14st-test/"),
    Rule("seeda/", *SEEDA, ""),
    # M2 versions of the Sakaguchi references: cnap/grammaticality-metrics `references/`.
    Rule("sakaguchi16/m2/", *CNAP, "references/"),
    Rule("sakaguchi16/", *REASSESS, ""),
    Rule("bn10gec/", *CNAP, "references/"),
    Rule("gmeg/", *GMEG, "data/"),
    # CLEME's example M2 files, copied unchanged from `tests/examples/` (sha256 of every file
    # checked against the repository at that commit).
    Rule("cleme/", *CLEME, "tests/examples/"),
    Rule("attack/", *ATTACK, ""),
    Rule("pillars/", *PILLARS, ""),
    Rule("ostling/", *OSTLING, ""),
    Rule("multigec/annotation/", *MULTIGEC_ANNOTATION, ""),
    Rule("multigec/results/", *MULTIGEC_RESULTS, "results/"),
    Rule("revisitcgec/", *REVISITCGEC, ""),
    Rule("mucgec/", *MUCGEC, ""),
    Rule("cltc/", *CLTC, ""),
)


def source_for(path: str) -> str:
    """The manifest ``source`` field for a mirror-relative path (``ValueError`` if unmapped)."""
    if path in DERIVED_PATHS:
        return DERIVED
    for rule in RULES:
        if path.startswith(rule.local):
            repo_path = rule.upstream + path[len(rule.local):]
            suffix = ".gz" if rule.gz else ""
            return f"github:{rule.repo}@{rule.commit}:{repo_path}{suffix}"
    raise ValueError(f"{path}: no source rule matches; add one to RULES")


def mirror_files(mirror: Path) -> list[str]:
    """All data files under the mirror (posix relative paths, sorted), README.md files excluded."""
    paths = []
    for file in mirror.rglob("*"):
        if file.is_file():
            rel = file.relative_to(mirror).as_posix()
            if file.name != "README.md" and (not rel.startswith(CHINESE_FOLDERS) or rel in CHINESE_FILES):
                paths.append(rel)
    return sorted(paths)


def check_derived(mirror: Path) -> None:
    """Fail unless every embedded derived table equals the mirror's copy byte for byte."""
    for rel, content in DERIVED_TABLES.items():
        on_disk = (mirror / rel).read_bytes()
        if on_disk != content:
            raise SystemExit(f"{mirror / rel}: differs from the table embedded in fetch.py")


def manifest_lines(mirror: Path) -> list[str]:
    """One manifest line per mirror data file, then the :data:`OPTIONAL_FILES`."""
    lines = []
    for rel in mirror_files(mirror):
        file = mirror / rel
        fields = (rel, sha256_file(file), str(file.stat().st_size), source_for(rel))
        lines.append("\t".join(fields))
    for repo_path, sha, size in OPTIONAL_FILES:
        rel = f"pillars/{repo_path}"
        if (mirror / rel).exists():
            raise SystemExit(f"{mirror / rel}: an optional file is in the mirror; list it in one place only")
        lines.append("\t".join((rel, sha, str(size), source_for(rel), OPTIONAL)))
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write the manifest; return 0 on success."""
    parser = argparse.ArgumentParser(prog="python -m gec_meta.data.make_manifest",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/data"),
                        help="data mirror to describe (default: <repo>/../shared/data)")
    parser.add_argument("--out", type=Path, default=DEFAULT_MANIFEST,
                        help="manifest to write (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.mirror is None or not args.mirror.is_dir():
        print(f"error: mirror {args.mirror} is not a directory", file=sys.stderr)
        return 2
    check_derived(args.mirror)
    lines = manifest_lines(args.mirror)
    if len(lines) != EXPECTED_FILES + len(OPTIONAL_FILES):
        print(f"warning: {len(lines)} files, expected {EXPECTED_FILES}", file=sys.stderr)
    args.out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"wrote {args.out}: {len(lines)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
