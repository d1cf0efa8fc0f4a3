"""Language -> tokenisation and edit extractor: the one place every edit-extracting path asks.

A dataset declares its language (:attr:`gec_meta.data.datasets.Dataset.language`, ISO 639-1):

* ``en``: the texts are tokenised by the dataset (CoNLL-2014 style) and edits come from ERRANT
  (:func:`gec_meta.edits.extract.errant_extractor`, spaCy's English model), unchanged.
* ``zh``: the texts are ChERRANT's characters (:func:`gec_meta.edits.cherrant.tokenise`) and edits
  come from ChERRANT at character level (:func:`gec_meta.edits.cherrant.cherrant_extractor`).
* any other code: the language-independent extractor of :mod:`gec_meta.edits.generic`.

Metrics, reference sets (gold edits extracted from text references), CLEME, GoToScorer, PT/UOT,
LLM-E and the attribution analysis all get their extractor from :func:`edit_extractor`.
"""

from __future__ import annotations

from gec_meta.errors import ConfigError

#: Languages whose tokenisation and edits this module knows by name.
KNOWN = ("en", "zh")


def check_language(language: str) -> str:
    """``language`` if it is a plausible ISO 639-1 code (two lowercase letters), else ConfigError."""
    if not (isinstance(language, str) and len(language) == 2 and language.isalpha() and language.islower()):
        raise ConfigError(f"dataset.language must be an ISO 639-1 code such as en, zh or sv, got {language!r}")
    return language


def edit_extractor(language: str = "en"):
    """The edit extractor of ``language``: an object with ``extract(pairs, threads=None) ->
    list[tuple[Edit, ...]]`` (shape (P,)) and a ``signature``."""
    if language == "en":
        from gec_meta.edits.extract import errant_extractor

        return errant_extractor()
    if language == "zh":
        from gec_meta.edits.cherrant import cherrant_extractor

        return cherrant_extractor()
    check_language(language)
    from gec_meta.edits.generic import generic_extractor

    return generic_extractor()


def extractor_name(language: str = "en") -> str:
    """Short name of the edit extractor of ``language`` for signatures (``errant``,
    ``cherrant-char``, ...)."""
    if language == "en":
        return "errant"
    if language == "zh":
        return "cherrant-char"
    check_language(language)
    from gec_meta.edits.generic import NAME

    return NAME


def tokenise(text: str, language: str = "en") -> str:
    """``text`` as the space-separated tokens metrics of ``language`` read: Chinese as ChERRANT's
    characters; other languages as given (their datasets are tokenised by their loaders)."""
    if language == "zh":
        from gec_meta.edits.cherrant import tokenise as chars

        return chars(text)
    return text
