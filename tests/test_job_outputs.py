"""A job's output files form one unit, and a file that cannot be written is one line naming it
(issue 24 items 4 and 8).

Item 4: ``run.py metric=length hydra.run.dir=out/x``, then ``aggregation=trueskill`` in the same
folder under ``ulimit -f`` (it died after writing ``config.yaml`` and ``results.md``), then the
first command again: it skipped ("result already in ...") and left the TrueSkill files beside
the default run's ``results.json``.  Item 8: a full disk or ``ulimit -f`` gave a raw
``[Errno 28]`` / ``[Errno 27]`` traceback and left a ``.tmp-*`` file behind.
"""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gec_meta.cli import resume
from inprocess import run_main
from gec_meta.outputs import OutputError, replace_atomically, save_figure, write_output

REPO = Path(__file__).resolve().parents[1]
FILE_LIMIT = 8192  # bytes: config.yaml and results.md fit, results.json and sentence_scores.tsv do not


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_LIMIT, FILE_LIMIT))


def _run_py(args, data_root, cache, limited=False):
    """``run.py *args``; in a fresh process under ``ulimit -f`` (``limited``), else in this
    process (tests/inprocess.py: the same status and lines, without ~1 s of start-up)."""
    env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(cache)}
    env.pop("HYDRA_FULL_ERROR", None)
    if not limited:
        return run_main(args, env, REPO)
    return subprocess.run([sys.executable, str(REPO / "run.py"), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300, preexec_fn=_limit_file_size)


def _files(folder: Path) -> dict[str, bytes]:
    """The job's own files (Hydra's ``.hydra/`` and log are Hydra's)."""
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file() and p.name != "run.log"}


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob("*") if p.name.startswith((".partial-", ".tmp")) or p.suffix in (".tmp", ".part")]


def test_a_run_that_died_in_a_folder_leaves_the_previous_unit_whole(data_root, tmp_path):
    out, cache = tmp_path / "out" / "x", tmp_path / "cache"
    first = _run_py(["metric=length", f"hydra.run.dir={out}"], data_root, cache)
    assert first.returncode == 0, first.stderr[-2000:]
    unit = _files(out)
    assert set(unit) == {"results.json", "results.md", "sentence_scores.tsv", "timing.json", "config.yaml",
                         "inputs.json"}
    died = _run_py(["metric=length", "aggregation=trueskill", f"hydra.run.dir={out}"], data_root, cache, limited=True)
    assert died.returncode == 2
    lines = [line for line in died.stderr.splitlines() if line.startswith("gec-meta: error")]
    assert len(lines) == 1 and "Traceback" not in died.stderr, died.stderr[-2000:]
    assert re.fullmatch(rf"gec-meta: error: {re.escape(str(out))}/(results\.json|sentence_scores\.tsv): "
                        r"file too large \(ulimit -f\)", lines[0]), lines[0]
    assert _files(out) == unit and not _leftovers(out)  # nothing of the TrueSkill run
    again = _run_py(["metric=length", f"hydra.run.dir={out}"], data_root, cache)
    assert again.returncode == 0 and "skipping" in again.stderr + again.stdout
    assert _files(out) == unit
    # The TrueSkill run, given room, replaces the whole unit; the default run then replaces it back.
    trueskill = _run_py(["metric=length", "aggregation=trueskill", f"hydra.run.dir={out}"], data_root, cache)
    assert trueskill.returncode == 0 and json.loads((out / "results.json").read_text())["aggregation"] == "trueskill"
    assert "TrueSkillAggregation" in (out / "config.yaml").read_text()
    back = _run_py(["metric=length", f"hydra.run.dir={out}"], data_root, cache)
    assert back.returncode == 0 and "the config changed" in back.stdout + back.stderr
    changed = {k for k, v in _files(out).items() if v != unit[k]}
    assert changed <= {"timing.json"}, changed  # timings vary run to run


def _unit(out: Path, **files: str) -> None:
    names = {"results": "results.json", "md": "results.md", "tsv": "sentence_scores.tsv", "timing": "timing.json"}
    resume.publish(out, {names[k]: v for k, v in files.items()}, "cfg", "m(v=1)", {})


def test_resume_checks_every_file_of_the_unit(tmp_path):
    out = tmp_path / "job"
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}', md="# A\n")
    assert resume.stale_reason(out, "cfg", lambda: "m(v=1)") == ({"format_version": 2, "config_id": "cfg"}, None)
    # A file of another run beside results.json (what the old writer left after item 4's run).
    (out / "results.md").write_text("# B\n")
    _, why = resume.stale_reason(out, "cfg", lambda: "m(v=1)")
    assert why.startswith(f"{out / 'results.md'} belongs to another run or was changed")
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}', md="# A\n")
    (out / "sentence_scores.tsv").write_text("system\tsentence\tline\tscore\n")  # not part of this unit
    assert resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1] == f"{out / 'sentence_scores.tsv'} belongs to another run"
    # Another unit whose results.json is copied in (inputs.json is a unit's record, results.json included).
    other = tmp_path / "other"
    _unit(other, results='{"format_version": 2, "config_id": "cfg", "x": 1}', md="# A\n")
    (out / "results.json").write_bytes((other / "results.json").read_bytes())
    assert "results.json belongs to another run" in resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1]
    # timing.json belongs to the unit, without a digest (its times vary; inputs.json stays
    # byte-identical across runs of a job): another content is fine, a missing one is not.
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}', timing='{"total_s": 1.0}')
    (out / "timing.json").write_text('{"total_s": 2.0}')
    assert resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1] is None
    (out / "timing.json").unlink()
    assert resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1] == f"{out / 'timing.json'} is missing"
    # A record written before outputs were recorded: the job reruns once.
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}')
    (out / "inputs.json").write_text(json.dumps({"config_id": "cfg", "metric": "m(v=1)", "inputs": {}}))
    assert "does not record the job's output files" in resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1]


def test_a_result_of_other_code_is_recomputed(tmp_path, package):
    """A job folder written by other gec-meta code (a `git pull`, an upgrade under the same
    version number: a fix may have moved its numbers) is not reused; an edit of any module of
    the package moves the code version (``package``: a copy of the sources, the same bytes)."""
    from gec_meta.cache import code
    from package_copy import append, clear_memos

    out = tmp_path / "job"
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}')
    record = json.loads((out / "inputs.json").read_text())
    assert record["code"] == code.package_code_version() and len(record["code"]) == 16
    assert resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1] is None
    append(package / "meta" / "correlation.py", "\n# a fix\n")
    clear_memos()
    assert code.package_code_version() != record["code"]
    why = resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1]
    assert why == (f"gec-meta's code changed since the job ran (code version {record['code']} -> "
                   f"{code.package_code_version()})")


def test_a_unit_replaces_the_previous_one_and_removes_its_other_files(tmp_path):
    out = tmp_path / "job"
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}', md="# A\n", tsv="A\n")
    _unit(out, results='{"format_version": 2, "config_id": "cfg", "b": 1}', md="# B\n")
    assert not (out / "sentence_scores.tsv").exists()
    assert (out / "results.md").read_text() == "# B\n"
    assert resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1] is None
    assert sorted(p.name for p in out.iterdir()) == ["inputs.json", "results.json", "results.md"]


def test_a_job_killed_while_moving_its_files_leaves_no_result(tmp_path, monkeypatch):
    out = tmp_path / "job"
    _unit(out, results='{"format_version": 2, "config_id": "cfg"}', md="# A\n")
    real, moved = os.replace, []

    def replace(src, dst):  # dies after the first file of the new unit is in place
        if Path(dst).parent == out:
            if moved:
                raise OSError(errno.EIO, "Input/output error")
            moved.append(dst)
        real(src, dst)

    monkeypatch.setattr(resume.os, "replace", replace)
    with pytest.raises(OutputError, match=r"job/[a-z_.]+: cannot write it \(Input/output error\)"):
        _unit(out, results='{"format_version": 2, "config_id": "cfg", "b": 1}', md="# B\n")
    monkeypatch.undo()
    assert not (out / "results.json").exists()  # a mixture is never a result
    assert "results.json is missing" in resume.stale_reason(out, "cfg", lambda: "m(v=1)")[1]
    assert not _leftovers(out)


@pytest.fixture
def full_disk(monkeypatch):
    """Temporary files are opened on /dev/full: every write fails with ENOSPC (from the kernel)."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    real = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        fd, name = real(*args, **kwargs)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), name

    monkeypatch.setattr(tempfile, "mkstemp", mkstemp)


def test_a_full_disk_names_the_file_and_leaves_no_temporary(tmp_path, full_disk):
    from gec_meta.report.tables import atomic_write_text

    target = tmp_path / "leaderboard.md"
    with pytest.raises(OutputError) as info:
        atomic_write_text(target, "x" * 100_000)  # the writer of the leaderboard, reports, score files
    assert str(info.value) == f"{target}: no space left on device"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OutputError, match=r"job/results\.(md|json): no space left on device"):
        _unit(tmp_path / "job", results="{}", md="# A\n")
    assert list((tmp_path / "job").iterdir()) == []
    from matplotlib.figure import Figure

    fig = Figure()
    fig.subplots().plot([0, 1])
    with pytest.raises(OutputError, match=r"leaderboard\.png: no space left on device"):
        save_figure(fig, tmp_path / "leaderboard.png", 50)
    assert list(tmp_path.iterdir()) == [tmp_path / "job"]


def test_report_collation_past_ulimit_is_one_line(tmp_path):
    job = tmp_path / "runs" / "0"
    _unit(job, results=json.dumps({"format_version": 2, "dataset": "seeda", "setting": "base", "refset": "none",
                                   "metric": "length", "aggregation": "default",
                                   "system": {"TS": {"pearson": 0.5, "spearman": 0.5}}, "sentence": {},
                                   "config_id": "cfg"}))

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (40, 40))

    proc = subprocess.run([sys.executable, "-m", "gec_meta.report", str(tmp_path / "runs")], cwd=REPO,
                          capture_output=True, text=True, timeout=60, preexec_fn=limit)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == f"gec-meta: error: {tmp_path / 'runs' / 'summary_system.csv'}: file too large (ulimit -f)"
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["0"]


def test_replace_atomically_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "results.md"
    write_output(target, "old\n")

    def fail(fh):
        fh.write(b"half")
        raise OSError(errno.EFBIG, "File too large")

    with pytest.raises(OSError):
        replace_atomically(target, fail)
    with pytest.raises(OutputError, match=r"results\.md: file too large \(ulimit -f\)"):
        write_output(target, fail)
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["results.md"]
