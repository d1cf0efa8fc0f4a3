"""Edits: the one edit type and edit application (:mod:`.edit`), ERRANT extraction with its
process-wide extractor (:mod:`.extract`), ERRANT's alignment speed-ups (:mod:`.errant_align`,
:mod:`.spacy_speed`) and m2scorer's edit lattice (:mod:`.m2scorer`)."""
