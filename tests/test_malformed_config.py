"""Issue 24, items 5b, 6 and 8 (config values): no code from a config value, a range for every
count that sets the amount of work, and one line instead of a traceback or a wrong hint.

Each case is an input that used to run code, run unbounded, print a traceback or a misleading
message (the issue's reproductions); the expected outcome is written out in the test.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from gec_meta.cli.errors import error_line
from gec_meta.cli.main import main as cli_main
from gec_meta.config import compose, config_root
from gec_meta.errors import ConfigError, DataError, GecMetaError

REPO = Path(__file__).resolve().parents[1]


def _one_error_line(stderr: str, progress: bool = False) -> str:
    """The one ``gec-meta: error:`` line of ``stderr``, which holds nothing else (but warnings,
    and with ``progress`` tqdm's bars)."""
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith("gec-meta: warning")]
    if progress:
        lines = [line for line in lines if not re.search(r"\d+%\|", line)]
    assert "Traceback" not in stderr, stderr[-3000:]
    assert len(lines) == 1 and lines[0].startswith("gec-meta: error: "), stderr[-3000:]
    return lines[0]


def _run_env(data_root, tmp_path, env=None) -> dict:
    full_env = {**os.environ, "GEC_META_DATA": str(data_root), "GEC_META_CACHE": str(tmp_path / "cache"), **(env or {})}
    full_env.pop("HYDRA_FULL_ERROR", None)
    return full_env


def _run_py(args, data_root, tmp_path, env=None):
    return subprocess.run([sys.executable, str(REPO / "run.py"), *args, f"hydra.run.dir={tmp_path / 'run'}",
                           f"hydra.sweep.dir={tmp_path / 'sweep'}"],
                          cwd=tmp_path, env=_run_env(data_root, tmp_path, env), capture_output=True, text=True,
                          timeout=300)


def _run_main(args, data_root, tmp_path):
    """``run.py`` in this process (tests/inprocess.py, ~1 s of CPU less than a subprocess): for
    runs that stop at a check of their config or inputs; the plugin tests, about PYTHONPATH, and
    one case of each test below keep a real process."""
    from inprocess import run_main

    return run_main([*args, f"hydra.run.dir={tmp_path / 'run'}", f"hydra.sweep.dir={tmp_path / 'sweep'}"],
                    _run_env(data_root, tmp_path), tmp_path)


# ----------------------------------------------------------------- 5b: no code from a config value
@pytest.fixture
def evil(tmp_path):
    """A YAML whose instantiation would create ``canary`` (builtins.open with mode w), and a
    logging config that would do the same through a handler factory; paths relative to a config
    group folder of the installed configs, as ``metric=../../...`` would name them."""
    canary = tmp_path / "canary"
    (tmp_path / "evil").mkdir()
    yaml = tmp_path / "evil" / "x.yaml"
    yaml.write_text(f"_target_: builtins.open\nfile: {canary}\nmode: w\n")
    log = tmp_path / "evil" / "log.yaml"
    log.write_text(f"version: 1\nhandlers:\n  h:\n    (): builtins.open\n    file: {canary}\n    mode: w\n"
                   "root:\n  handlers: [h]\n")

    def relative(path: Path, group: str) -> str:
        return os.path.relpath(path.with_suffix(""), config_root() / group)

    return canary, relative, yaml, log


def test_group_option_paths_are_unknown_options_in_the_api(evil):
    from gec_meta.api import load_metric

    canary, relative, yaml, _ = evil
    for name in ("../dataset/seeda", relative(yaml, "metric"), "/etc/passwd", ".hidden"):
        with pytest.raises(ConfigError, match=rf"metric={re.escape(name)}: unknown metric '{re.escape(name)}' "
                                              r"\(a config group option is a name, not a path\); available: .*errant"):
            load_metric(name)
    # Other groups through the overrides of the API and of compose()
    for override in (f"encoder={relative(yaml, 'encoder')}", "encoder=../metric/m2", "hydra/job_logging=../../x"):
        group = override.split("=")[0]
        with pytest.raises(ConfigError, match=rf"unknown {group} "):
            compose((override,))
    assert not canary.exists()


@pytest.mark.parametrize("argv", [
    ["--metric", "../dataset/seeda"],
    ["--metric", "pt_m2", "-c", "encoder=../metric/m2"],
])
def test_group_option_paths_are_unknown_options_in_gec_meta_score(tmp_path, capsys, argv):
    (tmp_path / "src.txt").write_text("A b .\n")
    (tmp_path / "A.txt").write_text("A b .\n")
    status = cli_main(["score", "--src", str(tmp_path / "src.txt"), "--hyp", str(tmp_path / "A.txt"),
                       "--ref", str(tmp_path / "A.txt"), *argv])
    assert status == 2
    line = _one_error_line(capsys.readouterr().err)
    assert re.search(r"unknown (metric|encoder) '\.\./", line), line


def test_group_option_paths_are_unknown_options_in_gec_meta_run(data_root, tmp_path, evil):
    canary, relative, yaml, log = evil
    cases = [
        (["metric=../dataset/seeda"], r"metric=../dataset/seeda: unknown metric '../dataset/seeda'"),
        ([f"metric={relative(yaml, 'metric')}"], r"unknown metric '\.\./"),
        (["-m", "metric=length,../dataset/seeda"], r"metric=../dataset/seeda: unknown metric"),
        (["metric=length", f"hydra/job_logging={relative(log, 'hydra/job_logging')}"], r"unknown hydra/job_logging '\.\./"),
        (["metric=length", f"meta_eval.epsilon_from={relative(yaml, 'dataset')}"],
         r"meta_eval.epsilon_from must be one of \['bea19_dev_attack', 'gjg15', 'gmeg', 'gmeg_wiki', 'multigec2025', 'ostling2024', 'revisit_cgec', 'seeda', 'seeda_attack'\] or null, got '\.\./"),
    ]
    for n, (args, message) in enumerate(cases):
        proc = (_run_py if n == 0 else _run_main)(args, data_root, tmp_path)
        assert proc.returncode == 2, (args, proc.stderr[-2000:])
        assert re.search(message, _one_error_line(proc.stderr)), (args, proc.stderr)
    assert not canary.exists()


def test_leaderboard_config_cannot_name_a_path(tmp_path, capsys, evil):
    canary, relative, yaml, _ = evil
    board = tmp_path / "board.yaml"
    board.write_text(f"permutations: 100\naggregations: [default]\nmetrics:\n  {relative(yaml, 'metric')}: {{label: X}}\n"
                     "benchmarks:\n  GJG15: {dataset: gjg15, human: [TS], sentence: ranking}\n")
    assert cli_main(["leaderboard", "--config", str(board), "--out", str(tmp_path / "out")]) == 2
    assert re.search(r"unknown metric '\.\./", _one_error_line(capsys.readouterr().err, progress=True))
    assert not canary.exists()


def test_epsilon_from_takes_dataset_names_only():
    from gec_meta.cli.run import dataset_config

    assert dataset_config("gjg15")["_target_"] == "gec_meta.data.datasets.load_gjg15"
    for name in ("../metric/m2", "../../../../tmp/x", "nosuch"):
        with pytest.raises(ConfigError, match=r"meta_eval.epsilon_from=.*unknown dataset"):
            dataset_config(name)


def test_prompt_templates_cannot_run_code(tmp_path):
    """A prompt template is a text file that a config value names (``metric.template=PATH``);
    Jinja2 without a sandbox runs ``{{ cycler.__init__.__globals__.os.system(...) }}``."""
    from gec_meta.llm.prompts import Context, PromptTemplate

    canary = tmp_path / "canary"
    template = tmp_path / "t.txt"
    template.write_text("{{ cycler.__init__.__globals__.os.system('touch " + str(canary) + "') }} {{ targets }}")
    with pytest.raises(ConfigError, match=r"t.txt \(criterion: none\): a prompt template may only fill in text"):
        PromptTemplate(str(template)).render("a b .", Context(), ["x"])
    assert not canary.exists()


def test_shipped_prompts_render_as_without_the_sandbox():
    """The sandbox changes nothing for the shipped prompts: every template x criterion renders
    to the same text as Jinja2's plain Environment with the same options."""
    import jinja2

    from gec_meta.llm.prompts import PROMPT_DIR, Context, PromptTemplate

    plain = jinja2.Environment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                               keep_trailing_newline=False, autoescape=False)
    context = Context("The first .", "The last .")
    for template in ("llm_s", "llm_e"):
        for criterion in [None, *sorted(p.stem for p in (PROMPT_DIR / "criteria").glob("*.txt"))]:
            t = PromptTemplate(template, criterion)
            lines = ["The first .", "A b .", "The last ."]
            variables = {"context": lines, "context_size": "three sentences", "source_position": "middle",
                         "targets": ["x", "y"]}
            crit = plain.from_string(t.criterion_text.strip()).render(**variables) if t.criterion_text else ""
            assert t.render("A b .", context, ["x", "y"]) == plain.from_string(t.template_text).render(
                **variables, criterion=crit).strip()


# ----------------------------------------------------------------- 8: typed top-level and meta_eval keys
CONFIG_CASES = {
    "top_ks_scalar": (["meta_eval.top_ks=5"], r"meta_eval.top_ks must be a list of integers >= 2 \(e.g. \[5, 4\]\) or null, got 5"),
    "top_ks_one": (["meta_eval.top_ks=[1]"], r"meta_eval.top_ks must be a list of integers >= 2"),
    "threads_text": (["threads=abc"], r"threads must be an integer >= 1 or auto or null, got 'abc'"),
    "threads_zero": (["threads=0"], r"threads must be an integer >= 1 or auto or null, got 0"),
    "cache_off": (["cache=off"], r"cache must be a boolean \(true or false\), got 'off'"),
    "cache_one": (["cache=1"], r"cache must be a boolean \(true or false\), got 1"),
    "sentence_level_maybe": (["meta_eval.sentence_level=maybe"],
                             r"meta_eval.sentence_level must be a boolean \(true or false\), got 'maybe'"),
    "sentence_scores_yes": (["meta_eval.sentence_scores=yes"], r"meta_eval.sentence_scores must be a boolean"),
    "variant": (["meta_eval.sentence_variant=foo"],
                r"meta_eval.sentence_variant must be one of \['seeda', 'wmt', 'displayed'\], got 'foo'"),
    "spa_trueskill": (["meta_eval.spa_trueskill=games"], r"meta_eval.spa_trueskill must be one of"),
    "window_bool": (["meta_eval.window=true"], r"meta_eval.window must be an integer"),
    "bootstrap_huge": (["meta_eval.bootstrap_samples=1000000"],
                       r"meta_eval.bootstrap_samples must be an integer: 0 \(off\) or >= 40 and <= 10000, got 1000000"),
    "permutations_huge": (["meta_eval.spa_permutations=99999999"], r"meta_eval.spa_permutations must be .* <= 10000"),
    "unknown_key": (["+meta_eval.windw=3"], r"meta_eval has no key 'windw'; keys: window, "),
    "both_epsilons": (["meta_eval.epsilon=0.1", "meta_eval.epsilon_from=gjg15"], r"set meta_eval.epsilon or"),
    "data_dir_empty": (["data_dir=''"], r"data_dir must be a folder, got ''"),
}


@pytest.mark.parametrize("overrides, message", CONFIG_CASES.values(), ids=CONFIG_CASES.keys())
def test_every_top_level_and_meta_eval_key_is_typed(overrides, message):
    from gec_meta.cli.run import check_config

    with pytest.raises(ConfigError, match=message):
        check_config(compose(("metric=length", *overrides)))


def test_defaults_and_valid_values_pass():
    from gec_meta.cli.run import check_config

    options = check_config(compose(("metric=length",)))
    assert options["window"] == 4 and options["top_ks"] is None and options["sentence_level"] is True
    options = check_config(compose(("metric=length", "meta_eval.top_ks=[5,4]", "threads=2", "cache=false")))
    assert options["top_ks"] == [5, 4]


def test_threads_from_the_environment_is_an_integer(monkeypatch):
    from gec_meta.cli.run import check_config

    monkeypatch.setenv("GEC_META_THREADS", "3")
    compose.cache_clear()
    try:
        cfg = compose(("metric=length",))
        assert cfg.threads == 3  # was the string '3'
        check_config(cfg)
        monkeypatch.setenv("GEC_META_THREADS", "abc")
        with pytest.raises(ConfigError, match=r"threads must be an integer >= 1 or auto or null, got 'abc'"):
            check_config(compose(("metric=length", "cache=true")))
    finally:
        compose.cache_clear()


def test_top_ks_beyond_the_systems_is_a_config_error(data_root):
    from gec_meta.data.datasets import load_seeda
    from gec_meta.meta.aggregation import Default
    from gec_meta.meta.task import Task
    from gec_meta.metrics.length import Length

    ds = load_seeda(data_root, setting="base")  # 12 systems
    with pytest.raises(ConfigError, match=r"meta_eval.top_ks must be K values in 2..12 \(the dataset's 12 systems\), got \[13, 4\]"):
        Task(ds, Length(), Default(), top_ks=[13, 4])
    with pytest.raises(ConfigError, match=r"cache must be a boolean"):
        Task(ds, Length(), Default(), use_cache="off")
    assert Task(ds, Length(), Default(), top_ks=[12, 4]).top_ks == (12, 4)


@pytest.mark.parametrize("args, message", [
    (["meta_eval.top_ks=5"], r"meta_eval.top_ks must be a list of integers"),
    (["threads=abc"], r"threads must be an integer >= 1 or auto or null, got 'abc'"),
    (["cache=off"], r"cache must be a boolean \(true or false\), got 'off'"),
    (["meta_eval.sentence_level=maybe"], r"meta_eval.sentence_level must be a boolean"),
])
def test_run_py_typed_keys_are_one_line(data_root, tmp_path, args, message):
    proc = (_run_py if args == ["threads=abc"] else _run_main)(["metric=length", *args], data_root, tmp_path)
    assert proc.returncode == 2 and re.search(message, _one_error_line(proc.stderr)), proc.stderr[-2000:]
    assert not (tmp_path / "run" / "results.json").exists()


def _metric_classes():
    from gec_meta.metrics.registry import metric_class, metric_names

    return {metric_class(n) for n in metric_names()}


def test_every_boolean_and_integer_metric_field_is_typed():
    """The general rule: a metric field declared ``bool`` takes only true/false, one declared
    ``int`` only integers (every metric's ``__post_init__`` reaches ``check_fields`` first)."""
    from gec_meta.fields import _declared

    checked = 0
    for cls in sorted(_metric_classes(), key=lambda c: c.__name__):
        for f in dataclasses.fields(cls):
            if not f.init or f.name.startswith("_"):
                continue
            constraint, _ = _declared(f)
            if constraint is None or f.type not in ("bool", "int", "int | None", "bool | None"):
                continue
            bad = "maybe" if "bool" in f.type else "abc"
            with pytest.raises(ConfigError, match=rf"metric.{f.name} must be "):
                cls(**{f.name: bad})
            checked += 1
    assert checked >= 20, checked  # dry_run, idf, weighted, lowercase, batch_size, max_n, ...


# ----------------------------------------------------------------- 6: every count that sets the work has a range
def _gleu(**kw):
    from gec_meta.metrics.ngram.gleu import GLEU

    return GLEU(**kw)


def _green(**kw):
    from gec_meta.metrics.ngram.green import GREEN

    return GREEN(**kw)


def _uot_settings(**kw):
    from gec_meta.metrics.edit.uot_transport import UOTSettings

    return UOTSettings(**kw)


def _scribendi(**kw):
    from gec_meta.metrics.neural.scribendi import Scribendi

    return Scribendi(device="cpu", **kw)


def _board(**kw):
    from gec_meta.meta.board import BoardConfig

    return BoardConfig.from_mapping(kw)


BOUNDS = [
    (lambda: _gleu(iterations=10 ** 6), r"metric.iterations must be an integer >= 1 and <= 10000, got 1000000"),
    (lambda: _gleu(max_n=1000), r"metric.max_n must be an integer >= 1 and <= 10, got 1000"),
    (lambda: _green(max_n=50), r"metric.max_n must be an integer >= 1 and <= 10"),
    (lambda: _uot_settings(max_iter=10 ** 9), r"metric.max_iter must be an integer >= 1 and <= 100000"),
    (lambda: _scribendi(batch_size=10 ** 7), r"metric.batch_size must be an integer >= 1 and <= 4096"),
    (lambda: _board(permutations=10 ** 8), r"leaderboard.permutations must be an integer >= 100 and <= 10000"),
    (lambda: _board(seed=-1), r"leaderboard.seed must be an integer >= 0, got -1"),
    (lambda: _board(seed="abc"), r"leaderboard.seed must be an integer >= 0, got 'abc'"),
    (lambda: _board(weights={"GJG15/TS/pearson": "x"}), r"weights must be numbers >= 0"),
]


@pytest.mark.parametrize("build, message", BOUNDS, ids=[f"b{i}" for i in range(len(BOUNDS))])
def test_work_counts_have_a_range(build, message):
    with pytest.raises(ConfigError, match=message):
        build()


def test_experiment_resamples_have_a_range(tmp_path, capsys):
    from gec_meta.report.reproduce import Significance, parse_experiment_args

    for argv, message in ((["--resamples", "100000000"], "--resamples must be an integer >= 1 and <= 10000"),
                          (["--seed", "-2"], "--seed must be an integer >= 0, got -2")):
        with pytest.raises(SystemExit) as info:
            parse_experiment_args(argv, "doc", tmp_path, Significance())
        assert info.value.code == 2 and message in capsys.readouterr().err


def test_llm_retries_have_a_range():
    from gec_meta.metrics.llm import LLMSentence

    with pytest.raises(ConfigError, match=r"metric.max_retries must be an integer >= 0 and <= 10, got 1000"):
        LLMSentence(llm=object(), max_retries=1000)
    with pytest.raises(ConfigError, match=r"metric.dry_run must be a boolean"):
        LLMSentence(llm=object(), dry_run="maybe")


# Six ERRANT edits (has -> have, a -> an, have -> has, dog -> dogs, is -> are, was -> were).
_SRC = "I has a apple and she have two dog and they is happy and we was tired ."
_HYP = "I have an apple and she has two dogs and they are happy and we were tired ."


@pytest.fixture
def one_sentence(tmp_path):
    for name, text in (("src", _SRC), ("hyp", _HYP), ("ref", _HYP)):
        (tmp_path / f"{name}.txt").write_text(text + "\n")
    return [f"--src={tmp_path / 'src.txt'}", f"--hyp={tmp_path / 'hyp.txt'}", f"--ref={tmp_path / 'ref.txt'}"]


@pytest.mark.parametrize("extra, message", [
    (["--max-exact-edits", "31"], r"max_exact_edits \(--max-exact-edits\) must be an integer >= 0 and <= 16, got 31"),
    (["--num-samples", "0"], r"num_samples \(--num-samples\) must be an integer >= 1 and <= 10000, got 0"),
    (["--num-samples", "100000000"], r"num_samples \(--num-samples\) must be an integer >= 1 and <= 10000"),
    (["--seed", "-1"], r"seed \(--seed\) must be an integer >= 0, got -1"),
])
def test_attribute_bounds_are_one_line(one_sentence, capsys, extra, message):
    assert cli_main(["attribute", *one_sentence, "--metric", "sentm2", *extra]) == 2
    assert re.search(message, _one_error_line(capsys.readouterr().err))


def test_sampled_shapley_beyond_the_bound_carries_its_seed(one_sentence, capsys):
    """More edits than --max-exact-edits: sampled Shapley values, reproducible from the seed
    recorded in the output, and efficient (they sum to sent_score - src_score exactly: every
    edit order's marginal contributions telescope to v(all) - v({}))."""
    argv = ["attribute", *one_sentence, "--metric", "sentm2", "--max-exact-edits", "3", "--num-samples", "40", "--json"]
    assert cli_main([*argv, "--seed", "7"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["edits"]) == 6 and out["method"] == "shapley"
    assert out["sampling"] == {"orders": 40, "seed": [7, 0]}
    assert sum(out["attribution"]) == pytest.approx(out["sent_score"] - out["src_score"], abs=1e-12)
    assert cli_main([*argv, "--seed", "7"]) == 0
    assert json.loads(capsys.readouterr().out) == out
    assert cli_main(argv[:-1] + ["--seed", "8"]) == 0
    assert "sampled: 40 orders, seed [8, 0]" in capsys.readouterr().out


# ----------------------------------------------------------------- 8: not a regular file
@contextmanager
def _deadline(seconds: int = 20):
    """Fail instead of hanging when a reader opens a FIFO (it would block without a writer)."""
    def fail(*_):
        raise AssertionError(f"blocked for {seconds} s: the reader opened a FIFO")

    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _special(path: Path, kind: str) -> Path:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    return path


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_fifo_or_device_is_not_a_regular_file(tmp_path, kind):
    from gec_meta.data.io import file_digest, read_lines
    from gec_meta.metrics.from_files import read_score_files

    path = _special(tmp_path / "A.seg.score", kind)
    with _deadline():
        with pytest.raises(DataError, match=rf"{path}: not a regular file \(a FIFO, socket or device\), expected a file"):
            read_lines(path)
        with pytest.raises(DataError, match=rf"{path}: not a regular file"):
            read_score_files(tmp_path, ["A"], 3)
        assert file_digest(path) is None  # resume checks never read it
    with pytest.raises(GecMetaError, match=r"no such file"):
        read_lines(tmp_path / "missing.txt")  # a missing file keeps its own message


@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_fifo_in_a_dataset_is_named(tmp_path, data_root, kind):
    import shutil

    from gec_meta.data.datasets import load_gmeg_wiki

    shutil.copytree(data_root / "gmeg", tmp_path / "gmeg")
    scores = tmp_path / "gmeg" / "test" / "wiki-corpus-scores.csv"
    scores.unlink()
    _special(scores, kind)
    with _deadline(), pytest.raises(DataError, match=rf"{scores}: not a regular file"):
        load_gmeg_wiki(tmp_path)


def test_run_py_score_file_fifo_is_one_line(data_root, tmp_path):
    from gec_meta.data.datasets import load_seeda

    ds = load_seeda(data_root, setting="base")
    scores = tmp_path / "scores"
    scores.mkdir()
    for s in ds.systems:
        (scores / f"{s}.seg.score").write_text("0.5\n" * ds.num_sentences)
    (scores / "T5.seg.score").unlink()
    _special(scores / "T5.seg.score", "fifo")
    proc = _run_main(["metric=from_files", f"metric.dir={scores}"], data_root, tmp_path)
    assert proc.returncode == 2
    assert _one_error_line(proc.stderr) == f"gec-meta: error: {scores}/T5.seg.score: not a regular file (a FIFO, socket or device), expected a file"


# ----------------------------------------------------------------- 8: plugins
@pytest.fixture
def plugins(tmp_path, monkeypatch):
    """Plugin modules that fail in the ways a user's own metric can, on sys.path."""
    pkg = tmp_path / "pkgs"
    pkg.mkdir()
    (pkg / "gm_raises.py").write_text("import math\nx = 1\nraise RuntimeError('plugin broke at import')\n")
    (pkg / "gm_syntax.py").write_text("def f(:\n    pass\n")
    (pkg / "gm_needs.py").write_text("import gm_no_such_dependency\n")
    (pkg / "gm_not_metric.py").write_text("class NotAMetric:\n    def __init__(self, **kw):\n        pass\n")
    monkeypatch.syspath_prepend(str(pkg))
    return pkg


@pytest.mark.parametrize("target, message", [
    ("gm_raises.Thing", r"^cannot import _target_ 'gm_raises.Thing': RuntimeError: plugin broke at import "
                        r"\({pkg}/gm_raises.py:3\)$"),
    ("gm_syntax.Thing", r"^cannot import _target_ 'gm_syntax.Thing': SyntaxError: invalid syntax "
                        r"\({pkg}/gm_syntax.py:1\)$"),
    ("gm_needs.Thing", r"ModuleNotFoundError: No module named 'gm_no_such_dependency' \({pkg}/gm_needs.py:1\)"),
    ("gm_nowhere.Thing", r"ModuleNotFoundError: No module named 'gm_nowhere' \(is its folder on PYTHONPATH\?\)"),
    ("gm_not_metric.Missing", r"AttributeError: module 'gm_not_metric' has no attribute 'Missing'$"),
])
def test_plugin_import_errors_show_the_modules_own_error(plugins, target, message):
    """Hydra says "Error locating target ..., set env var HYDRA_FULL_ERROR=1"; the line names
    the module's own error with its file and line (the RuntimeError is raised on line 3)."""
    from hydra.utils import instantiate

    from gec_meta.config import instantiate_as
    from gec_meta.metrics.base import Metric

    with pytest.raises(Exception) as info:
        instantiate_as({"_target_": target}, Metric, "metric")
    # instantiate() of a plain dict has no full_key: the CLI's configs name it ("metric: ...").
    line = error_line(info.value)
    assert re.search(message.format(pkg=re.escape(str(plugins))), line), line
    with pytest.raises(Exception) as nested:
        instantiate({"metric": {"_target_": target}}).metric
    assert error_line(nested.value).startswith("metric: cannot import"), error_line(nested.value)


def test_plugin_that_is_not_a_metric(plugins):
    from gec_meta.config import instantiate_as
    from gec_meta.metrics.base import Metric

    with pytest.raises(ConfigError, match=r"^metric: _target_ 'gm_not_metric.NotAMetric' built a gm_not_metric.NotAMetric, "
                                          r"not a gec_meta.metrics.base.Metric \(a plugin metric subclasses it"):
        instantiate_as({"_target_": "gm_not_metric.NotAMetric"}, Metric, "metric")


def test_run_py_plugin_errors_are_one_line(data_root, tmp_path, plugins):
    conf = tmp_path / "my_conf" / "metric"
    conf.mkdir(parents=True)
    (conf / "broken.yaml").write_text("_target_: gm_raises.Thing\n")
    (conf / "wrong.yaml").write_text("_target_: gm_not_metric.NotAMetric\n")
    env = {"PYTHONPATH": str(plugins)}
    searchpath = f"hydra.searchpath=[file://{tmp_path / 'my_conf'}]"
    proc = _run_py(["metric=broken", searchpath], data_root, tmp_path, env)
    assert proc.returncode == 2
    assert _one_error_line(proc.stderr) == (f"gec-meta: error: metric: cannot import _target_ 'gm_raises.Thing': "
                                            f"RuntimeError: plugin broke at import ({plugins}/gm_raises.py:3)")
    proc = _run_py(["metric=wrong", searchpath], data_root, tmp_path, env)
    assert proc.returncode == 2
    assert "built a gm_not_metric.NotAMetric, not a gec_meta.metrics.base.Metric" in _one_error_line(proc.stderr)


# ----------------------------------------------------------------- 8: leaderboard with a constant metric
def test_leaderboard_with_a_constant_metric_is_one_line(data_root, tmp_path, capsys, monkeypatch):
    """All systems scored 0.5: Pearson is undefined (0/0).  A run reports NaN with a warning;
    the leaderboard cannot rank the metric and says so in one line (it was a ValueError
    traceback from the cluster ranking)."""
    from gec_meta.data.datasets import load_seeda

    monkeypatch.setenv("GEC_META_DATA", str(data_root))
    ds = load_seeda(data_root, setting="base")
    scores = tmp_path / "const"
    scores.mkdir()
    for s in ds.systems:
        (scores / f"{s}.seg.score").write_text("0.5\n" * ds.num_sentences)
    board = tmp_path / "board.yaml"
    board.write_text(f"permutations: 100\naggregations: [default]\nmetrics:\n  from_files: {{label: Const, overrides: "
                     f"[metric.dir={scores}]}}\n  length: {{label: Length}}\nbenchmarks:\n  SEEDA-E Base: {{dataset: seeda, "
                     "overrides: [dataset.setting=base], human: [TS_edit], sentence: edit}\n")
    # As the console command shows them (`console_main`): gec-meta's warnings in one line, also
    # when pytest does not capture warnings (`-p no:warnings`).
    import warnings

    from gec_meta.cli.errors import install_warning_format

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    install_warning_format()
    assert cli_main(["leaderboard", "--config", str(board), "--out", str(tmp_path / "out")]) == 2
    line = _one_error_line(capsys.readouterr().err, progress=True)
    assert line == ("gec-meta: error: leaderboard: metric 'from_files' (Const) has no pearson on SEEDA-E Base/TS_edit/"
                    "pearson (its default system scores are all 0.5), so it cannot be ranked; leave it out (--metrics) "
                    "or check its scores (`gec-meta-run` reports such a run with NaN and a warning)")
    assert not (tmp_path / "out" / "leaderboard.md").exists()
