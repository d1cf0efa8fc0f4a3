"""Edits: the one edit type and edit application (:mod:`.edit`), ERRANT extraction with its
process-wide extractor (:mod:`.extract`), ERRANT's alignment speed-ups (:mod:`.errant_align`,
:mod:`.spacy_speed`) and m2scorer's edit lattice (:mod:`.m2scorer`); ChERRANT (:mod:`.cherrant`),
the parser-free extractor (:mod:`.generic`), the language -> extractor dispatch
(:mod:`.languages`), the edit sets every metric reads (:mod:`.edit_sets`) and two texts' common
prefix/suffix (:mod:`.affixes`)."""
