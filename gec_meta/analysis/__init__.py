"""Analyses of what a metric rewards: edit-level attribution (:mod:`.attribution`)."""
