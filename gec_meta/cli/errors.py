"""One line for every error a user can fix, at the command-line edges (``gec-meta``,
``gec-meta-run``/``run.py``, ``python -m gec_meta.report``).

The library raises :class:`gec_meta.errors.GecMetaError` subclasses whose message names the
file and line or the config key; Hydra wraps them (``InstantiationException``) or raises its
own (bad overrides, unknown config options, misspelled fields: messages naming the key but
spread over several lines).  :func:`error_line` turns all of them into one line; anything else
is a bug and keeps its traceback.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading

from gec_meta.errors import GecMetaError

PROG = "gec-meta"
EXIT_USER_ERROR = 2
#: The shell's status of a process ended by SIGINT (128 + 2), which Ctrl-C ends with.
EXIT_INTERRUPTED = 130


def _user_error_types() -> tuple[type[BaseException], ...]:
    types: list[type[BaseException]] = [GecMetaError]
    try:
        from hydra.errors import HydraException
        from omegaconf.errors import OmegaConfBaseException

        types += [HydraException, OmegaConfBaseException]
    except ImportError:  # pragma: no cover - hydra is a dependency
        pass
    return tuple(types)


def _chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _one_line(text: str) -> str:
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Set the environment variable HYDRA_FULL_ERROR"):
            continue
        if line.startswith("Config search path"):
            break
        if line:
            lines.append(line)
    return "; ".join(lines)


def _import_failure(chain: list[BaseException]) -> str | None:
    """The one line of Hydra's "Error locating target": the ``_target_`` whose module could not
    be imported (a plugin metric: README "Your own metric") and the module's own error with its
    file and line, which Hydra's message hides behind ``HYDRA_FULL_ERROR=1``."""
    import re
    import traceback
    from pathlib import Path

    head = str(chain[0])
    located = re.match(r"Error locating target '([^']+)'", head)
    if not located:
        return None
    target = located.group(1)
    key = re.search(r"full_key: (\S+)", head)
    loading = [i for i, e in enumerate(chain) if isinstance(e, ImportError) and str(e).startswith("Error loading")]
    causes = chain[loading[0] + 1:] if loading else chain[1:]
    if not causes:
        return None
    # ``pkg.Class`` where pkg imports but has no Class: Hydra then tries ``import pkg.Class``;
    # the AttributeError says what is wrong.
    attribute = [e for e in causes if isinstance(e, AttributeError)
                 and str(e).endswith(f"has no attribute '{target.rpartition('.')[2]}'")]
    error = attribute[0] if attribute else causes[0]
    message, where = _one_line(str(error)), ""
    if isinstance(error, SyntaxError) and error.filename:
        message, where = error.msg, f" ({error.filename}:{error.lineno})"
    elif isinstance(error, ModuleNotFoundError) and error.name == target.split(".")[0]:
        where = " (is its folder on PYTHONPATH?)"
    elif not attribute:  # the innermost frame of the module's own code
        import importlib

        import hydra

        library = tuple(str(Path(m.__file__).parent) for m in (hydra, importlib))
        frames = [f for f in traceback.extract_tb(error.__traceback__)
                  if not f.filename.startswith("<") and not f.filename.startswith(library)]
        if frames:
            where = f" ({frames[-1].filename}:{frames[-1].lineno})"
    prefix = f"{key.group(1)}: " if key else ""
    return f"{prefix}cannot import _target_ {target!r}: {type(error).__name__}: {message}{where}"


def error_line(exc: BaseException) -> str | None:
    """The one-line message of a user error, or None when ``exc`` is not one (a bug).

    A :class:`GecMetaError` anywhere in the cause chain wins (Hydra's
    ``InstantiationException`` wrapping a ``ConfigError`` prints the ``ConfigError``); Hydra's
    and OmegaConf's own errors are joined into one line; an ``OSError`` naming a file (a
    directory given as a file, a permission problem) prints the file and the reason.
    """
    chain = list(_chain(exc))
    for e in chain:
        if isinstance(e, GecMetaError):
            return _one_line(str(e))
    for i, e in enumerate(chain):
        failure = _import_failure(chain[i:]) if type(e).__name__ == "InstantiationException" else None
        if failure:
            return failure
    options = getattr(exc, "options", None)
    missing = getattr(exc, "missing_cfg_file", None)
    if missing and options:  # hydra MissingConfigException: metric=nosuch, -c encoder=nosuch
        group, _, name = str(missing).rpartition("/")
        return f"{group}={name}: unknown {group or 'config'} {name!r}; available: {', '.join(options)}"
    if isinstance(exc, _user_error_types()):
        message = _one_line(str(exc)) or type(exc).__name__
        cause = exc.__cause__
        if cause is not None and isinstance(cause, _user_error_types()):
            detail = _one_line(str(cause)).split("; ")[0]
            if detail and detail not in message:
                first, _, rest = message.partition("; ")
                message = f"{first.rstrip('.')}: {detail}" + (f"; {rest}" if rest else "")
        return message
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return None


def report(exc: BaseException) -> int | None:
    """Print ``gec-meta: error: <one line>`` to stderr and return the exit status 2, or return
    None when ``exc`` is not a user error (the caller re-raises it)."""
    message = error_line(exc)
    if message is None:
        return None
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return EXIT_USER_ERROR


def interrupted(what: str, kept: str = "", cache: bool = True) -> int:
    """Print one line for a Ctrl-C (``gec-meta: interrupted: <what> stopped; ...``, instead of
    a ``KeyboardInterrupt`` traceback) and return the exit status 130.

    Args:
        what: the command that was interrupted, e.g. ``gec-meta score``.
        kept: what else is kept (e.g. a sweep's finished jobs).
        cache: the command fills the cache (statistics, LLM answers), which keeps what finished.
    """
    ctrl_c_taken()
    parts = [f"{PROG}: interrupted: {what} stopped (Ctrl-C)"]
    if cache:
        parts.append("the statistics and LLM answers finished so far are kept in the cache, so running it again "
                     "starts from them")
    if kept:
        parts.append(kept)
    print("; ".join(parts), file=sys.stderr)
    return EXIT_INTERRUPTED


class _CtrlC:
    """A SIGINT handler that raises ``KeyboardInterrupt`` as Python's does and raises it again
    each second until a command's ``except KeyboardInterrupt`` takes it (:func:`ctrl_c_taken`;
    a command stops within ~0.6 s of a Ctrl-C, worker processes included, so a repeat only
    fires where the first was lost -- or acts as a second Ctrl-C, which every command takes).

    Python's own handler raises the exception at whatever bytecode runs when the signal arrives;
    when that is a callback whose exceptions Python only prints (the import system's module-lock
    callback, a weakref callback, ``__del__``), the exception is lost ("Exception ignored in:
    ... KeyboardInterrupt") and the command runs on to its end with status 0, as if Ctrl-C had
    never been pressed (seen in ``tests/test_interrupt.py`` when the signal fell on an import).
    """

    def __init__(self) -> None:
        self.pending = False

    def __call__(self, signum, frame) -> None:
        self.pending = True
        timer = threading.Timer(1.0, self._again)
        timer.daemon = True
        timer.start()
        raise KeyboardInterrupt

    def _again(self) -> None:
        if self.pending:
            import _thread

            _thread.interrupt_main(signal.SIGINT)  # runs __call__ in the main thread again


_CTRL_C = _CtrlC()


@contextlib.contextmanager
def reliable_ctrl_c():
    """Within the block, Ctrl-C reaches the command's ``except KeyboardInterrupt`` even when the
    signal falls on code that drops exceptions (:class:`_CtrlC`); Python's handler is back
    after it.  Only in the main thread and over Python's own handler (a host that installed its
    own, e.g. a test runner, keeps it)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    signal.signal(signal.SIGINT, _CTRL_C)
    try:
        yield
    finally:
        _CTRL_C.pending = False
        signal.signal(signal.SIGINT, signal.default_int_handler)


def ctrl_c_taken() -> None:
    """The command has taken the ``KeyboardInterrupt``: no more repeats (:class:`_CtrlC`)."""
    _CTRL_C.pending = False


def install_warning_format() -> None:
    """Print gec-meta's own warnings (a corrupt cache entry dropped, an unwritable cache folder,
    an undefined correlation, missing LLM answers) as one line ``gec-meta: warning: ...``;
    other libraries' warnings keep Python's format."""
    import warnings

    default = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if getattr(category, "__module__", "").startswith("gec_meta"):
            print(f"{PROG}: warning: {_one_line(str(message))}", file=file or sys.stderr)
        else:
            default(message, category, filename, lineno, file, line)

    warnings.showwarning = show
