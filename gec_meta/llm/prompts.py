"""The prompts of the LLM evaluators (Kobayashi et al. 2024a, Appendix A) and what goes in them.

Templates are Jinja2 text files in ``conf/llm/prompts`` (``llm_s.txt`` sentence-based,
``llm_e.txt`` edit-based); a criterion variant appends one sentence from
``conf/llm/prompts/criteria/<name>.txt`` "to the end of the first paragraph of the prompt"
(Appendix A).  ``conf/llm/prompts/README.md`` says where every line of the templates comes from.

Variables a template receives:

* ``context``: the context sentences, in essay order: the previous sentence, the source, the
  following sentence (Appendix A: "[PREVIOUS] and [FOLLOWING] are the preceding and succeeding
  sentences in the essay"); a neighbour that does not exist is left out;
* ``context_size``: ``three sentences`` / ``two sentences`` / ``one sentence``;
* ``source_position``: where the source is in the context: ``middle``, ``first``, ``last``,
  ``only``;
* ``targets``: the target sentences (LLM-E: with their edits marked, :func:`mark_edits`);
* ``criterion``: the criterion sentence (rendered with the same variables) or ``""``.

Context of a sentence (:func:`corpus_context`): SEEDA's human judges saw the source with the
previous and the following line of the CoNLL-2014 test source (all 197 items of SEEDA's
``EditEval_Step1`` files that can be linked to a line show exactly those two lines), and the
paper's LLM prompts show the same three sentences; the SEEDA dataset object carries only the
judged sentences and their corpus lines, so the metric reads the neighbours from the corpus
file.  The corpus files mark no essay boundaries, so at the first or last sentence of an essay
the neighbour comes from the adjacent essay — as in SEEDA's own files.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from gec_meta.cache import text_hash
from gec_meta.config import config_root
from gec_meta.edits.edit import Edit
from gec_meta.errors import ConfigError

#: ``conf/llm/prompts``, installed with the configs (``gec_meta.conf``).
PROMPT_DIR = config_root() / "llm" / "prompts"

#: The arrow of the edit notation (SEEDA's edit-annotation files and the LLM-E prompt).
EDIT_ARROW = "\u2192"

_CONTEXT_SIZE = {1: "one sentence", 2: "two sentences", 3: "three sentences"}


def _resolve(name: str, folder: Path, config_key: str) -> Path:
    """``name`` as a file of ``folder`` (``<name>.txt``) or, when it has a suffix or a slash, a path."""
    path = Path(name).expanduser() if ("/" in name or name.endswith(".txt")) else folder / f"{name}.txt"
    if not path.is_file():
        available = sorted(p.stem for p in folder.glob("*.txt")) if folder.is_dir() else []
        raise ConfigError(f"{config_key}={name!r}: no template {path}; available: {available} or a path to a .txt file")
    return path


@functools.lru_cache(maxsize=None)
def _environment():
    import jinja2
    from jinja2.sandbox import SandboxedEnvironment

    # StrictUndefined: a misspelt variable is an error, not an empty string.  Sandboxed: a
    # template is text (any .txt file a config names), and an unsandboxed Jinja template can run
    # code ({{ cycler.__init__.__globals__.os.system(...) }}); the shipped prompts render the same.
    return SandboxedEnvironment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                keep_trailing_newline=False, autoescape=False)


@dataclass(frozen=True)
class Context:
    """The neighbours of a source sentence in its essay (None where there is none)."""

    previous: str | None = None
    following: str | None = None


class PromptTemplate:
    """One prompt template plus an optional criterion sentence.

    Args:
        template: a name in ``conf/llm/prompts`` (``llm_s``, ``llm_e``) or a path to a file.
        criterion: None, or a name in ``conf/llm/prompts/criteria`` (``fluency``, ...) or a path.
        allowed_criteria: the criteria the paper defines for this prompt (others are an error
            unless given as a path).
        config_key: the metric's config prefix named in errors.
    """

    def __init__(self, template: str, criterion: str | None = None, allowed_criteria: Sequence[str] = (),
                 config_key: str = "metric"):
        self.template_path = _resolve(template, PROMPT_DIR, f"{config_key}.template")
        self.template_text = self.template_path.read_text(encoding="utf-8")
        self.criterion_text, self.criterion = "", criterion
        if criterion:
            if allowed_criteria and criterion not in allowed_criteria and "/" not in criterion:
                raise ConfigError(f"{config_key}.criterion={criterion!r}; this prompt's criteria (Kobayashi et al. "
                                  f"2024a, App. A) are {list(allowed_criteria)} (or a path to a .txt file)")
            self.criterion_text = _resolve(criterion, PROMPT_DIR / "criteria",
                                           f"{config_key}.criterion").read_text(encoding="utf-8")
        env = _environment()
        self._template = env.from_string(self.template_text)
        self._criterion = env.from_string(self.criterion_text.strip()) if self.criterion_text else None

    @property
    def identity(self) -> str:
        """Hash of the template and criterion texts (enters the statistics' cache key)."""
        return text_hash(self.template_text, self.criterion_text)[:16]

    def render(self, source: str, context: Context, targets: Sequence[str], language: str = "English") -> str:
        """The prompt for ``targets`` (already formatted) of ``source`` in ``context``; ``language``
        (the learners' language, a name) fills ``{{ language }}`` where a template has it."""
        lines = [x for x in (context.previous, source, context.following) if x is not None]
        if context.previous is not None and context.following is not None:
            position = "middle"
        elif context.previous is None and context.following is None:
            position = "only"
        else:
            position = "first" if context.previous is None else "last"
        variables = {"context": lines, "context_size": _CONTEXT_SIZE[len(lines)],
                     "source_position": position, "targets": list(targets), "language": language}
        from jinja2.exceptions import SecurityError

        try:
            criterion = self._criterion.render(**variables) if self._criterion is not None else ""
            return self._template.render(**variables, criterion=criterion).strip()
        except SecurityError as exc:
            raise ConfigError(f"{self.template_path} (criterion: {self.criterion or 'none'}): a prompt template may "
                              f"only fill in text, got: {exc}") from None


def mark_edits(source: str, edits: Sequence[tuple]) -> str:
    """The source with every edit written inline as ``[orig→corr]`` (SEEDA's notation).

    Insert "the": ``[→the]``; delete "the": ``[the→]``; replace "the" with "a": ``[the→a]``.
    A target without edits is the unchanged source.

    Args:
        source: the tokenised source sentence.
        edits: ERRANT edits (:class:`gec_meta.edits.edit.Edit`) of (source, target)
            (:meth:`gec_meta.edits.extract.ErrantExtractor.extract`); noop edits are ignored.
    """
    tokens = source.split()
    real = sorted((Edit._make(e) for e in edits), key=lambda e: (e.start, e.end))
    real = [e for e in real if e.type != "noop" and e.start >= 0]
    out: list[str] = []
    pos = 0
    for e in real:
        out.extend(tokens[pos:e.start])
        out.append(f"[{e.original}{EDIT_ARROW}{e.correction}]")
        pos = max(pos, e.end)
    out.extend(tokens[pos:])
    return " ".join(out)


def corpus_context(sources: Sequence[str], corpus: Sequence[str]) -> tuple[list[Context], int]:
    """The neighbours of every source sentence in ``corpus`` (the essay text, one sentence a line).

    Sources are matched to corpus lines by text, in order (the first matching line after the
    previous source's line, else the first matching line at all), so datasets that keep the
    corpus order (SEEDA's subset and full set, GJG15) find their own lines even when a short
    sentence occurs twice.

    Args:
        sources: shape (N,).
        corpus: the corpus lines, whitespace-normalised like the sources.

    Returns:
        the contexts, shape (N,), and the number of sources not found (their context is empty).
    """
    where: dict[str, list[int]] = {}
    for i, line in enumerate(corpus):
        where.setdefault(line, []).append(i)
    out: list[Context] = []
    missing = 0
    last = -1
    for src in sources:
        hits = where.get(src)
        if not hits:
            out.append(Context())
            missing += 1
            continue
        k = bisect.bisect_right(hits, last)
        i = hits[k] if k < len(hits) else hits[0]
        last = i
        out.append(Context(corpus[i - 1] if i > 0 else None, corpus[i + 1] if i + 1 < len(corpus) else None))
    return out, missing
