"""``gec-meta-run`` (``run.py``) in the test process, for the tests of its one-line errors.

A ``run.py`` subprocess costs ~1 s of CPU before its first check (interpreter, imports, Hydra's
composition); a test of what a run refuses (a misspelled key, an untyped value, a path as a
group option, an unreadable input) only needs :func:`gec_meta.cli.run.main` itself, its exit
status and what it printed.  :func:`run_main` calls it with ``argv``, an environment and a
working folder, and puts back afterwards what a run changes in its process: the environment
(``main`` sets ``HYDRA_FULL_ERROR``), ``sys.argv``, the working folder, the logging handlers and
levels that Hydra's job logging configures, the warning filters and display, Hydra's global
state.  That the same lines come out of a real process, with the same status, is tested on
``run.py`` itself (tests/test_run.py::test_unknown_metric_config_is_a_clear_error and the
subprocess cases kept in test_malformed.py and test_malformed_config.py).
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path


def _loggers() -> list[logging.Logger]:
    """The root logger and every named one (not the placeholders of dotted names)."""
    return [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                   if isinstance(lg, logging.Logger))]


def _logging_state() -> dict:
    return {lg: (lg.level, list(lg.handlers), lg.propagate, lg.disabled) for lg in _loggers()}


def _restore_logging(saved: dict) -> None:
    for lg in _loggers():
        level, handlers, propagate, disabled = saved.get(lg, (logging.NOTSET, [], True, False))
        for handler in lg.handlers:
            if handler not in handlers:
                handler.close()  # the job's run.log file handler, the console handler on our buffer
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate, lg.disabled = propagate, disabled


@contextlib.contextmanager
def as_a_process(argv: list[str], env: dict[str, str], cwd: Path):
    """Run the block as a process with command line ``argv``, environment ``env`` and working
    folder ``cwd`` would, in this process; yields its (stdout, stderr) buffers.  Puts back
    afterwards what a ``gec-meta-run`` job changes in its process (see the module docstring)."""
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.hydra_config import HydraConfig

    import gec_meta.cli.run as run_module

    saved_env, saved_argv, saved_cwd = dict(os.environ), list(sys.argv), os.getcwd()
    saved_logging, saved_format = _logging_state(), warnings.formatwarning
    saved_tracebacks = run_module._TRACEBACKS
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        sys.argv = list(argv)
        with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, err
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        _restore_logging(saved_logging)
        warnings.formatwarning = saved_format
        run_module._TRACEBACKS = saved_tracebacks
        GlobalHydra.instance().clear()
        HydraConfig.instance().cfg = None


def run_main(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """``run.py *args`` with environment ``env`` in folder ``cwd``, in this process.

    Returns:
        what :func:`subprocess.run` would: ``returncode`` (the exit status: 0, or the
        ``SystemExit`` code; an exception other than ``SystemExit`` propagates, as a traceback
        would end the process), ``stdout`` and ``stderr`` as text.
    """
    import gec_meta.cli.run as run_module

    status = 0
    with as_a_process([str(Path(run_module.__file__)), *args], env, cwd) as (out, err):
        try:
            run_module.main()
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return subprocess.CompletedProcess([sys.executable, "run.py", *args], status, out.getvalue(), err.getvalue())
