"""The end of a console command's process (``gec-meta``, ``gec-meta-run``, the checkout's ``run.py``)."""

from __future__ import annotations


def freeze_heap() -> None:
    """Move every object the garbage collector tracks into its permanent generation
    (``gc.freeze``), once a console command has done its work and returns to the interpreter's
    exit.

    Python's shutdown collects garbage over every object still alive, several times, and frees the
    imported libraries' reference cycles (modules, classes, functions) one by one: with spaCy's
    English pipeline loaded, ~70,000 objects and ~0.2-0.3 s (a full collection of them alone takes
    ~0.05 s).  Measured on a 2-core host, 2026-11-30, 3 alternating pairs: ``gec-meta-run
    dataset=seeda dataset.setting=base metric=errant`` cold 2.96-3.62 -> 2.74-3.00 s, warm
    0.66-0.73 -> 0.61-0.65 s.  Frozen objects are never collected again, so those passes skip them
    and their memory goes back with the process, as after ``os._exit`` -- but the interpreter still
    exits normally: the atexit handlers (logging's flush, multiprocessing's and temporary
    folders' finalizers) run, and objects freed by reference counting still are.  What is skipped is
    only the finalisation of objects in reference cycles at exit, which Python does not promise
    (its data model, ``object.__del__``); gec-meta has written its outputs (files replaced whole)
    and flushed its stores before this point.

    Called by the console entry points only: never by the library (a user's process keeps its own
    shutdown), nor by the functions that tests run in-process (:func:`gec_meta.cli.run.main`,
    :func:`gec_meta.cli.main.main`), where frozen objects would outlive their test.
    """
    import gc

    gc.freeze()
