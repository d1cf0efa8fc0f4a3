"""ChERRANT's character-level edit extraction (Zhang et al., NAACL 2022, MuCGEC), reimplemented.

What ``parallel_to_m2.py -g char`` of HillZhang1999/MuCGEC ``scorers/ChERRANT`` (commit
39221934) does to a (source, target) pair, step by step and with its quirks:

1. **Text.** All whitespace is removed; the *target* (never the source) is converted from
   traditional to simplified characters with OpenCC ``t2s``.  Tokens are the characters, Latin
   letters and digits included, except that ``[缺失成分]`` ("missing constituent") stays one token.
2. **Alignment** (ChERRANT ``modules/alignment.py``, after ERRANT's): a Damerau-style edit
   distance with insertion = deletion = 1, transpositions of k+1 tokens costing k, and a
   substitution cost of ``semantic/6 + char + punct`` where *semantic* compares the two
   characters' classes in the Cilin thesaurus (``cilin.txt``: 0 same class, 2 x (3 - shared
   levels), 4 unknown), *char* is 0.5 unless both are CJK, else the share of characters without
   a shared pinyin reading or a confusion-set link (``confusion_dict.txt``), halved, and *punct*
   is 0 for two punctuation marks, 0.25 for two non-punctuation characters, 0.499 otherwise.
   Every operation whose total equals the cell's minimum is kept, and **every** cheapest path is
   enumerated (depth first, operations in the order T, S, I, D), unless the lengths differ by
   more than 10 tokens (then the first path only).  Costs are summed in ChERRANT's order so float
   ties come out the same.
3. **Merging** (``modules/merger.py``, char level): runs of D or of I merge, a run mixing D and I
   stays split, any other non-match run (S alone, or S with D/I) becomes one S; then the
   ``S M S`` and ``D M I`` / ``I M D`` patterns that are a word-order change become one
   transposition, matches are dropped, and a substitution whose spans share a prefix or suffix
   is trimmed.
4. **Classification** (char level): T -> ``W``, D -> ``R``, I -> ``M``, S -> ``S``.
5. **Several alignments** (``-s all``): each *distinct* edit list of the cheapest alignments is
   written under the same annotator, and ``compare_m2_for_evaluation.py`` pools them, so an
   edit found by two alignments counts twice.  :meth:`CherrantExtractor.extract` therefore
   returns the concatenation of the distinct edit lists, repeats included; the ChERRANT
   comparison (:mod:`gec_meta.metrics.edit.cherrant`) counts them with their multiplicity.
6. A target equal to the source, or the literal ``没有错误`` ("no error"), has no edits; the
   literal ``无法标注`` ("cannot be annotated") is the pseudo-edit ``NA`` (the scorer skips such a
   sentence when it is the only reference).

Resources are read from the data directory (``mucgec/scorers/ChERRANT/data``, ``gec-meta data``),
never from the package.  Why by hand: ChERRANT is not a package (its scripts import ltp and
torch at module level even at character level, and read resources relative to their own
folder), and the project's edit cache and worker processes need an in-process extractor.
"""

from __future__ import annotations

import functools
import importlib.metadata as md
import os
from itertools import groupby
from pathlib import Path
from string import punctuation
from typing import Sequence

from gec_meta.cache import text_hash
from gec_meta.cache.code import computing_code_version
from gec_meta.edits.affixes import common_suffix_length
from gec_meta.edits.edit import Edit
from gec_meta.edits.stored import StoredExtractor
from gec_meta.errors import MissingDataError

#: ChERRANT's resources, relative to the data directory.
RESOURCE_DIR = "mucgec/scorers/ChERRANT/data"
CILIN = "cilin.txt"  # GBK-encoded
CONFUSION = "confusion_dict.txt"

#: The special target texts (ChERRANT ``modules/annotator.py``).
NO_ERROR = "没有错误"
NOT_ANNOTATABLE = "无法标注"
MISSING = "[缺失成分]"
#: The pseudo-edit types: no edit, and a reference that could not be annotated.
NOOP, NA = "noop", "NA"

# alignment.py's punctuation (used by the substitution cost) and merger.py's (used by the
# D M I rule): two different strings in ChERRANT, kept apart here.
_ALIGN_PUNCT = ("！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘'‛“”„‟…‧﹏"
                + punctuation)
_MERGE_PUNCT = punctuation + "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟–—‘'‛“”„‟…‧."

#: Lengths (tokens) of source and target differing by more than this: first cheapest path only.
ALL_PATHS_MAX_DIFF = 10


def char_tokens(text: str) -> list[str]:
    """ChERRANT's character tokens of a text (whitespace removed; ``[缺失成分]`` one token).

    Args:
        text: any text (spaces are ignored).

    Returns:
        shape (T,): the tokens.
    """
    joined = " ".join("".join(text.split()))
    return joined.replace("[ 缺 失 成 分 ]", MISSING).split(" ") if joined else []


def tokenise(text: str) -> str:
    """The text as space-separated ChERRANT character tokens (the form Chinese datasets hold)."""
    return " ".join(char_tokens(text))


@functools.lru_cache(maxsize=1)
def _t2s():
    import opencc

    return opencc.OpenCC("t2s")


def simplified(text: str) -> str:
    """``text`` converted from traditional to simplified characters (OpenCC ``t2s``), as ChERRANT
    converts every target."""
    return _t2s().convert(text)


def _edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (ChERRANT's ``Levenshtein.distance``)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein.distance(a, b)


def _all_chinese(word: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" for ch in word)


_NONE: frozenset[str] = frozenset()


class Resources:
    """Cilin's semantic codes and the character confusion set (ChERRANT ``read_cilin`` and
    ``read_confusion``), and the pinyin readings of characters (pypinyin, heteronyms)."""

    def __init__(self, root: str | Path):
        folder = Path(root) / RESOURCE_DIR
        cilin, confusion = folder / CILIN, folder / CONFUSION
        for path in (cilin, confusion):
            if not path.is_file():
                raise MissingDataError(f"{path}: no such file (ChERRANT's resources; run `gec-meta data` or set GEC_META_DATA)")
        self.semantic: dict[str, str] = {}
        for line in cilin.read_text(encoding="gbk").strip().split("\n"):
            code, *words = line.split(" ")
            for word in words:
                self.semantic[word] = code
        self.confusion: dict[str, frozenset[str]] = {}  # sets: ChERRANT only tests membership
        with open(confusion, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split(" ")
                self.confusion[fields[0]] = frozenset(fields[1:])
        self._sub: dict[tuple[str, str], float] = {}

    @staticmethod
    @functools.lru_cache(maxsize=None)
    def pinyin(token: str) -> frozenset[str]:
        """pypinyin's readings of a token (``pinyin(tok, style=NORMAL, heteronym=True)[0]``; a
        set: ChERRANT only intersects them)."""
        from pypinyin import Style, pinyin

        return frozenset(pinyin(token, style=Style.NORMAL, heteronym=True)[0])

    def _semantic_class(self, word: str):
        code = self.semantic.get(word)
        return None if code is None else (code[0], code[1], code[2:4])

    def _semantic_cost(self, a: str, b: str) -> int:
        ca, cb = self._semantic_class(a), self._semantic_class(b)
        if ca is None or cb is None:
            return 4
        if ca == cb:
            return 0
        return 2 * (3 - sum(x == y for x, y in zip(ca, cb)))

    def _char_cost(self, a: str, b: str) -> float:
        if not (_all_chinese(a) and _all_chinese(b)):
            return 0.5
        pa, pb = self.pinyin(a), self.pinyin(b)
        if len(a) > len(b):
            a, b, pa, pb = b, a, pb, pa
        if a == b:
            return 0
        shared_reading = not pa.isdisjoint(pb)
        count = 0
        for x in a:
            for y in b:
                if x == y or shared_reading or x in self.confusion.get(y, _NONE) or y in self.confusion.get(x, _NONE):
                    count += 1
                    break
        return (len(a) - count) / (len(a) * 2)

    def substitution_cost(self, a: str, b: str) -> float:
        """ChERRANT's character-level substitution cost of tokens a -> b (``get_sub_cost``)."""
        if a == b:
            return 0
        key = (a, b)
        cost = self._sub.get(key)
        if cost is None:
            semantic = self._semantic_cost(a, b) / 6.0
            if a in _ALIGN_PUNCT and b in _ALIGN_PUNCT:
                pos = 0.0
            elif a not in _ALIGN_PUNCT and b not in _ALIGN_PUNCT:
                pos = 0.25
            else:
                pos = 0.499
            cost = self._sub[key] = semantic + self._char_cost(a, b) + pos
        return cost


# ---------------------------------------------------------------------------- alignment
def _operations(src: Sequence[str], tgt: Sequence[str], res: Resources) -> list[list[list[str]]]:
    """The operation matrix of ChERRANT's alignment: every cheapest operation of each cell.

    Returns:
        shape (len(src)+1, len(tgt)+1): lists of ``M``, ``S``, ``I``, ``D`` or ``T<k+1>``.
    """
    n, m = len(src), len(tgt)
    cost = [[0.0] * (m + 1) for _ in range(n + 1)]
    ops: list[list[list[str]]] = [[[] for _ in range(m + 1)] for _ in range(n + 1)]
    for i in range(1, n + 1):
        cost[i][0] = cost[i - 1][0] + 1
        ops[i][0] = ["D"]
    for j in range(1, m + 1):
        cost[0][j] = cost[0][j - 1] + 1
        ops[0][j] = ["I"]
    inf = float("inf")
    substitution = res.substitution_cost
    last_src: dict[str, int] = {}  # token -> its last position in src before row i
    for i in range(n):
        si = src[i]
        last_si = -1  # the last column before j whose target token is si
        for j in range(m):
            tj = tgt[j]
            if si == tj:
                cost[i + 1][j + 1] = cost[i][j]
                ops[i + 1][j + 1] = ["M"]
                last_si = j
                continue
            del_cost = cost[i][j + 1] + 1
            ins_cost = cost[i + 1][j] + 1
            sub_cost = cost[i][j] + substitution(si, tj)
            # ChERRANT compares sorted(src[i-k:i+1]) with sorted(tgt[j-k:j+1]) for k = 1, 2, ...
            # while the diagonal's cost changes; the same test on multisets kept up to date.  The
            # two windows can only be equal if si occurs in tgt before j and tj in src before i:
            # otherwise no k can give a transposition and the search is skipped (same result).
            trans_cost = inf
            k = 1
            possible = last_si >= 0 and last_src.get(tj, -1) >= 0
            diff = {si: 1, tj: -1}
            unequal = 2
            while possible and i - k >= 0 and j - k >= 0 and cost[i - k + 1][j - k + 1] != cost[i - k][j - k]:
                for tok, d in ((src[i - k], 1), (tgt[j - k], -1)):
                    before = diff.get(tok, 0)
                    diff[tok] = before + d
                    unequal += (before + d != 0) - (before != 0)
                if not unequal:
                    trans_cost = cost[i - k][j - k] + k
                    break
                k += 1
            best = min(trans_cost, sub_cost, ins_cost, del_cost)
            cost[i + 1][j + 1] = best
            cell = []
            if trans_cost == best:
                cell.append(f"T{k + 1}")
            if sub_cost == best:
                cell.append("S")
            if ins_cost == best:
                cell.append("I")
            if del_cost == best:
                cell.append("D")
            ops[i + 1][j + 1] = cell
        last_src[si] = i
    return ops


Step = tuple[str, int, int, int, int]  # (op, src start, src end, tgt start, tgt end)


def cheapest_alignments(ops: list[list[list[str]]]) -> list[list[Step]]:
    """Every cheapest alignment, in ChERRANT's depth-first order (``get_cheapest_align_seq``):
    all paths, or the first one when the lengths differ by more than :data:`ALL_PATHS_MAX_DIFF`.

    Returns:
        shape (A,): each a list of steps (op, i0, i1, j0, j1) from the start of the sentences.
    """
    n, m = len(ops) - 1, len(ops[0]) - 1
    first_only = abs(n - m) > ALL_PATHS_MAX_DIFF
    out: list[list[Step]] = []
    # iterative depth-first search with ChERRANT's visiting order (its recursion, unrolled)
    stack: list[tuple[int, int, list[Step]]] = [(n, m, [])]
    while stack:
        i, j, path = stack.pop()
        if i + j == 0:
            out.append(path[::-1])
            continue
        cell = ops[i][j]
        if first_only:
            cell = cell[:1]
        children = []
        for op in cell:
            if op in ("M", "S"):
                children.append((i - 1, j - 1, path + [(op, i - 1, i, j - 1, j)]))
            elif op == "D":
                children.append((i - 1, j, path + [(op, i - 1, i, j, j)]))
            elif op == "I":
                children.append((i, j - 1, path + [(op, i, i, j - 1, j)]))
            else:
                k = int(op[1:])
                children.append((i - k, j - k, path + [(op, i - k, i, j - k, j)]))
        stack.extend(reversed(children))
    return out


def alignments(src: Sequence[str], tgt: Sequence[str], res: Resources) -> list[list[Step]]:
    """``cheapest_alignments(_operations(src, tgt, res))``, the texts' common suffix aligned
    without its cells.

    Equal tokens are always ``M`` in ChERRANT's recurrence, so every cheapest alignment walks
    the common suffix (length L) diagonally back from (n, m) to (n - L, m - L) and continues as
    those of ``src[:n-L]`` and ``tgt[:m-L]``, whose cells never read one outside that block (a
    cell reads up and left only; a transposition compares earlier tokens); the length
    difference that limits the search to one path is the same.  The block's alignments with the
    suffix's ``M`` steps appended are the whole table's, in the same order (~half the cells of
    a benchmark's pairs: the last edit is usually well before the end).

    Returns:
        shape (A,): each a list of steps (op, i0, i1, j0, j1), as :func:`cheapest_alignments`.
    """
    n, m = len(src), len(tgt)
    tail = common_suffix_length(src, tgt)
    if not tail:
        return cheapest_alignments(_operations(src, tgt, res))
    i0, j0 = n - tail, m - tail
    suffix = [("M", i0 + t, i0 + t + 1, j0 + t, j0 + t + 1) for t in range(tail)]
    return [a + suffix for a in cheapest_alignments(_operations(src[:i0], tgt[:j0], res))]


# ---------------------------------------------------------------------------- merging
def _merge(seq: list[Step], tag: str) -> list[Step]:
    return [(tag, seq[0][1], seq[-1][2], seq[0][3], seq[-1][4])] if seq else seq


def _process_run(seq: list[Step]) -> list[Step]:
    if len(seq) <= 1:
        return seq
    ops = {s[0] for s in seq}
    if ops == {"D"} or ops == {"I"}:
        return _merge(seq, ops.pop())
    if ops == {"D", "I"}:
        return seq
    if ops == {"M"}:
        return _merge(seq, "M")
    return _merge(seq, "S")  # S alone (char level) or S mixed with D/I


def _rotation(a: str, b: str) -> bool:
    return b in a + a


def merge(alignment: list[Step], src: Sequence[str], tgt: Sequence[str]) -> list[Step]:
    """ChERRANT's character-level merger (``modules/merger.py``): span edits of one alignment."""
    edits: list[Step] = []
    for key, group in groupby(alignment, lambda x: x[0][0] if x[0][0] in ("M", "T") else False):
        group = list(group)
        edits.extend(group if key == "T" else _process_run(group))

    filtered: list[Step] = []
    i = 0
    while i < len(edits):
        e1 = edits[i][0][0]
        swap = _swap_pattern(edits, i, src, tgt) if i < len(edits) - 2 else None
        if swap is not None:  # an S M S, D M I or I M D pattern: one transposition, or the first edit kept
            if swap:
                filtered.extend(_merge(edits[i:i + 3], "T" + str(edits[i + 2][2] - edits[i][1])))
                i += 3
            else:
                filtered.append(edits[i])
                i += 1
            continue
        if e1 != "M":
            filtered.append(edits[i])
        i += 1
    return [_trim(e, src, tgt) for e in filtered if "".join(src[e[1]:e[2]]) != "".join(tgt[e[3]:e[4]])]


def _swap_pattern(edits: list[Step], i: int, src: Sequence[str], tgt: Sequence[str]) -> bool | None:
    """Whether edits i, i+1, i+2 form a word-order change (merger.py): None when they are not an
    ``S M S`` or ``D M I`` / ``I M D`` (M possibly a T) pattern at all."""
    e1, e2, e3 = edits[i][0][0], edits[i + 1][0][0], edits[i + 2][0][0]
    if e1 == "S" and e2 == "M" and e3 == "S":
        w1 = "".join(src[edits[i][1]:edits[i][2]])
        w2 = "".join(tgt[edits[i][3]:edits[i][4]])
        w3 = "".join(src[edits[i + 2][1]:edits[i + 2][2]])
        w4 = "".join(tgt[edits[i + 2][3]:edits[i + 2][4]])
        if min(len(w1), len(w2), len(w3), len(w4)) == 1:
            return w1 == w4 and w2 == w3
        return _edit_distance(w1, w4) <= 1 and _edit_distance(w2, w3) <= 1
    if (e1 == "D" and (e2 == "M" or e2.startswith("T")) and e3 == "I") or \
            (e1 == "I" and (e2 == "M" or e2.startswith("T")) and e3 == "D"):
        if e1 == "D":
            deleted, inserted = src[edits[i][1]:edits[i][2]], tgt[edits[i + 2][3]:edits[i + 2][4]]
        else:
            deleted, inserted = src[edits[i + 2][1]:edits[i + 2][2]], tgt[edits[i][3]:edits[i][4]]
        a, b = "".join(deleted), "".join(inserted)
        if len(a) < len(b):
            a, b = b, a
        if a in _MERGE_PUNCT or b in _MERGE_PUNCT or len(a) - len(b) > 1:  # substring tests, as merger.py
            return False
        if len(b) == 1:
            return a == b
        return _edit_distance(a, b) <= 1 or (len(a) == len(b) and _rotation(a, b))
    return None


def _trim(edit: Step, src: Sequence[str], tgt: Sequence[str]) -> Step:
    """A substitution whose spans share a prefix or suffix, cut down (merger.py's second filter)."""
    if edit[0] != "S":
        return edit
    span2 = "".join(tgt[edit[3]:edit[4]])
    changed = False
    common = ""
    new_start = edit[1]
    for i in range(edit[1], edit[2]):
        if not span2.startswith(common + src[i]):
            break
        common += src[i]
        new_start = i + 1
    start1, start2 = edit[1], edit[3]
    if common:
        acc = ""
        for i in range(edit[3], edit[4]):
            acc += tgt[i]
            if acc == common:
                start1, start2 = new_start, i + 1
                changed = True
                break
            if len(acc) > len(common):
                break
    common = ""
    end1, end2 = edit[2], edit[4]
    new_end = edit[2]
    for i in reversed(range(start1, edit[2])):
        if not span2.endswith(src[i] + common):
            break
        common = src[i] + common
        new_end = i
    if common:
        acc = ""
        for i in reversed(range(start2, edit[4])):
            acc = tgt[i] + acc
            if acc == common:
                end1, end2 = new_end, i
                changed = True
                break
            if len(acc) > len(common):
                break
    if not changed:
        return edit
    op = "I" if start1 == end1 else "D" if start2 == end2 else "S"
    return (op, start1, end1, start2, end2)


# ---------------------------------------------------------------------------- annotation
_TYPES = {"T": "W", "D": "R", "I": "M", "S": "S"}


#: Marks the type of an edit of the second, third, ... distinct alignment: ``S@1``.
ALTERNATIVE = "@"


def _classified(step: Step, src: Sequence[str], tgt: Sequence[str], alignment: int = 0) -> Edit:
    """An edit with ChERRANT's char-level type (``@k`` appended for the k-th further distinct
    alignment); the correction is the target tokens joined by spaces ("" for a deletion, which
    ChERRANT writes ``-NONE-``)."""
    op = step[0][0]
    correction = "" if op == "D" else " ".join(tgt[step[3]:step[4]])
    kind = _TYPES[op] + (f"{ALTERNATIVE}{alignment}" if alignment else "")
    return Edit(step[1], step[2], step[3], step[4], " ".join(src[step[1]:step[2]]), correction, kind)


def first_alignment(edits: Sequence[Edit]) -> tuple[Edit, ...]:
    """The edits of the first cheapest alignment only (``-s first``): one non-overlapping
    partition of the source, what metrics that cut the text at edits (CLEME, GoToScorer) and
    edit attribution need."""
    return tuple(e for e in edits if ALTERNATIVE not in e.type)


def edit_type(edit: Edit) -> str:
    """ChERRANT's type of an edit (the alignment mark dropped)."""
    return edit.type.split(ALTERNATIVE)[0]


def annotate(source: str, target: str, res: Resources) -> tuple[Edit, ...]:
    """ChERRANT's edits of one pair (target converted to simplified characters first).

    Returns:
        shape (E,): the edits of every distinct cheapest alignment, concatenated (repeats kept,
        see the module docstring; those of the k-th further alignment typed ``<type>@k``,
        :func:`first_alignment`); () when the target equals the source or is ``没有错误``; one
        ``NA`` pseudo-edit (span (-1, -1)) when it is ``无法标注``.
    """
    src = char_tokens(source)
    tgt = char_tokens(simplified("".join(target.split())))
    src_str, tgt_str = "".join(src), "".join(tgt)
    if tgt_str == NO_ERROR or src_str == tgt_str:
        return ()
    if tgt_str == NOT_ANNOTATABLE:
        return (Edit(-1, -1, -1, -1, "", "", NA),)
    seen: list[list[Step]] = []
    out: list[Edit] = []
    for alignment in alignments(src, tgt, res):
        steps = merge(alignment, src, tgt)
        if steps not in seen:
            out.extend(_classified(s, src, tgt, len(seen)) for s in steps)
            seen.append(steps)
    return tuple(out)


# ---------------------------------------------------------------------------- extractor
@functools.lru_cache(maxsize=1)
def extractor_signature() -> str:
    """Identity of the Chinese edit extractor's code and libraries (with the resources' identity,
    :meth:`CherrantExtractor.signature`, its name in signatures)."""
    def version(pkg: str) -> str:
        try:
            return md.version(pkg)
        except md.PackageNotFoundError:
            return "none"

    return (f"cherrant-char:MuCGEC@39221934|pypinyin:{version('pypinyin')}|opencc:{version('opencc')}"
            f"|code:{computing_code_version(__name__)}")


def resources_identity(root: str | Path) -> tuple[str, bool]:
    """The content digest of ChERRANT's two resources under ``root`` (sha256 over their names and
    sha256s, memoised by each file's stat) and whether both are the pinned MuCGEC files (the data
    manifest's sha256).  Edits depend on them (Cilin's codes and the confusion set are in the
    substitution cost), so they are part of the extractor's cache namespace: a data directory
    with other resources never reads edits computed with these.

    Raises:
        MissingDataError: a resource is missing.
    """
    from gec_meta.cache import file_sha256
    from gec_meta.data.verify import load_manifest

    folder = Path(root) / RESOURCE_DIR
    digests = {}
    for name in (CILIN, CONFUSION):
        path = folder / name
        if not path.is_file():
            raise MissingDataError(f"{path}: no such file (ChERRANT's resources; run `gec-meta data` or set GEC_META_DATA)")
        digests[name] = file_sha256(path)
    pinned = {e.path: e.sha256 for e in load_manifest()}
    is_pinned = all(pinned.get(f"{RESOURCE_DIR}/{n}") == d for n, d in digests.items())
    return text_hash(*(f"{n}={d}" for n, d in sorted(digests.items()))), is_pinned


def _annotate_chunk(context, idx: list[int]) -> list[tuple]:
    pairs, root = context
    res = _resources(str(root))
    return [tuple(tuple(e) for e in annotate(*pairs[i], res)) for i in idx]


@functools.lru_cache(maxsize=2)
def _resources(root: str) -> Resources:
    return Resources(root)


class CherrantExtractor(StoredExtractor):
    """Disk-cached ChERRANT character-level edit extraction, with the interface of
    :class:`gec_meta.edits.extract.ErrantExtractor` (``extract(pairs, threads)``, ``signature``).

    Args:
        root: the data directory holding ChERRANT's resources (default: ``gec-meta data``'s,
            resolved now; :func:`cherrant_extractor` keeps one extractor per directory).
    """

    #: pairs from which extraction uses worker processes
    min_parallel = 200

    def __init__(self, root: str | Path | None = None, progress: bool = True):
        if root is None:
            from gec_meta.data.fetch import default_data_dir as default_root

            root = default_root()
        self.root = Path(root)
        self.progress = progress
        self._store = None
        self._identity: tuple[str, bool] | None = None

    def _resources_identity(self) -> tuple[str, bool]:
        if self._identity is None:
            self._identity = resources_identity(self.root)
        return self._identity

    @property
    def signature(self) -> str:
        """The extractor in result signatures: :func:`extractor_signature`, whose
        ``MuCGEC@39221934`` names the pinned resources -- replaced by ``resources@<digest>`` when
        the data directory holds other ones (``resources-missing`` where it holds none: then no
        edit was extracted, e.g. a result of a metric without edits)."""
        sig = extractor_signature()
        try:
            digest, pinned = self._resources_identity()
        except MissingDataError:
            return sig.replace("MuCGEC@39221934", "resources-missing", 1)
        return sig if pinned else sig.replace("MuCGEC@39221934", f"resources@{digest[:12]}", 1)

    def namespace(self) -> str:
        return f"{extractor_signature()}|resources:{self._resources_identity()[0]}"

    def extract(self, pairs: Sequence[tuple[str, str]], threads: int | None = None) -> list[tuple[Edit, ...]]:
        """ChERRANT's edits of every (source, target) pair.

        Args:
            pairs: shape (P,); texts with or without spaces between characters.
            threads: CPU threads (caps the worker processes; None = the job's cores).

        Returns:
            shape (P,): see :func:`annotate`.
        """
        from gec_meta.parallel import parallel_map

        keys = [text_hash("zh", s, t) for s, t in pairs]
        todo = self._missing(keys, pairs)
        if todo:
            _resources(str(self.root))  # loaded (and checked) once; forked workers inherit it
            todo_keys = list(todo)
            todo_pairs = [todo[k] for k in todo_keys]
            results = parallel_map(_annotate_chunk, len(todo_pairs), (todo_pairs, str(self.root)), threads=threads,
                                   min_work=self.min_parallel, desc="ChERRANT", unit="pair", progress=self.progress)
            store = self.store
            for key, edits in zip(todo_keys, results):
                store.put(key, edits)
        return self._stored(keys)


def cherrant_extractor(root: str | Path | None = None) -> CherrantExtractor:
    """The process-wide ChERRANT extractor of the data directory ``root`` (default: the one
    ``GEC_META_DATA`` names now -- resolved at every call, so a process that changes it, e.g. a
    notebook or a test, never keeps extracting with the first directory's resources)."""
    if root is None:
        from gec_meta.data.fetch import default_data_dir

        root = default_data_dir()
    return _extractor_of(os.path.realpath(root))


@functools.lru_cache(maxsize=8)
def _extractor_of(root: str) -> CherrantExtractor:
    return CherrantExtractor(root)
