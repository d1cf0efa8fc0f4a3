"""``make reproduce``: regenerate every table and figure into ``outputs/reproduce/`` with an index.

    .venv/bin/python experiments/reproduce_all.py [--out outputs/reproduce] [names...]
        [--significance williams|permutation|bootstrap] [--resamples N] [--seed K] [--native-kernels]

The significance options are passed on to the scripts whose tables mark the metrics that are
not significantly worse than the best (``rethinking.py``, ``ptm2_tables.py``).

Each experiment script writes Markdown tables that put our value next to the published one
(and the difference) plus its PNG figures; this driver runs them in order (cheap ones first;
the encoder caches make the neural ones cheap on a second run) and writes ``index.md`` with
each report's summary line.

On an x86-64 CPU with AVX2 and FMA the experiments run with the AVX2 float kernels
(:data:`gec_meta.kernels.PORTABLE_KERNELS`, each unless already set in the environment): the
neural metrics' last bits then do not depend on whether the CPU also has AVX-512, and the
committed reports (made on AVX2 hosts) come back byte for byte on either (README "Reproducing the
published numbers").  ``--native-kernels`` runs with the kernels the libraries pick for this CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# (script, report files it writes) in the order they run.
EXPERIMENTS = [
    ("foundation.py", ["foundation.md"]),
    ("rethinking.py", ["rethinking_table1.md"]),
    ("seeda_readme.py", ["seeda_readme_table.md"]),
    ("ptm2_tables.py", ["ptm2_tables.md"]),
    ("pt_m2_minilm.py", ["pt_m2_minilm.md"]),
    ("ptm2_figures.py", ["ptm2_figures.md"]),
    ("baselines.py", ["baselines.md"]),
    ("uot_tables.py", ["uot_tables.md"]),
    ("uot_figures.py", ["uot_figures.md"]),
    ("llm_evaluators.py", ["llm_evaluators_table1.md"]),
    ("leaderboard.py", ["leaderboard.md"]),
    ("multilingual_zh.py", ["multilingual.md"]),
    ("multilingual_sv.py", ["multilingual_sv.md"]),
]


def summary(path: Path) -> str:
    if not path.is_file():
        return "(not written)"
    for line in reversed(path.read_text(encoding="utf-8").splitlines()):
        if "rows within tolerance" in line:
            return line.replace("**", "").strip(" *")
    return "(report without checked rows)"


SIGNIFICANCE_SCRIPTS = {"rethinking.py", "ptm2_tables.py"}


def parse_args(argv: list[str]):
    """``[--out DIR] [names...] [--significance M] [--resamples N] [--seed K]``: a name is an
    experiment script without ``.py`` (none: all); ``--help`` and a misspelled name or option
    stop with a usage line instead of starting the whole reproduction."""
    import argparse

    from gec_meta.report.reproduce import SIGNIFICANCE_METHODS

    names = [script.removesuffix(".py") for script, _ in EXPERIMENTS]
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", metavar="name", help="experiments to run (default: all): " + ", ".join(names))
    ap.add_argument("--out", type=Path, default=REPO / "outputs" / "reproduce", help="output folder")
    ap.add_argument("--significance", choices=SIGNIFICANCE_METHODS, help=f"passed on to {', '.join(sorted(SIGNIFICANCE_SCRIPTS))}")
    ap.add_argument("--resamples", type=int, help="passed on with --significance")
    ap.add_argument("--seed", type=int, help="passed on with --significance")
    ap.add_argument("--native-kernels", action="store_true",
                    help="the float kernels the libraries pick for this CPU, not the AVX2 ones (module docstring)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in names]
    if unknown:
        ap.error(f"unknown experiment {unknown[0]!r}; choose from {', '.join(names)}")
    args.forwarded = [x for flag in ("significance", "resamples", "seed") if getattr(args, flag) is not None
                      for x in (f"--{flag}", str(getattr(args, flag)))]
    return args


def experiment_env(native: bool) -> dict[str, str]:
    """The experiments' environment: this one, plus the AVX2 kernels where the CPU runs them
    (x86-64 with AVX2 and FMA) unless ``native``; a variable already set is left as it is."""
    from gec_meta.kernels import PORTABLE_KERNELS, cpu_class

    env = dict(os.environ)
    if not native and cpu_class().endswith(("/avx2", "/avx512")):
        for key, value in PORTABLE_KERNELS.items():
            env.setdefault(key, value)
    return env


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    out, names, forwarded = args.out, args.names, args.forwarded
    env = experiment_env(args.native_kernels)
    from gec_meta.kernels import KERNEL_ENV

    pins = " ".join(f"{k}={env[k]!r}" for k in KERNEL_ENV if env.get(k)) or "none (native kernels)"
    print(f"float kernels: {pins}", file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# Reproduced tables and figures", "",
             "Regenerated by `make reproduce`; each report lists our value, the published value and "
             "the difference row by row.", "", "| experiment | report | summary | time |", "|---|---|---|---|"]
    failed = 0
    for script, reports in EXPERIMENTS:
        if names and script.removesuffix(".py") not in names:
            continue
        if not (HERE / script).is_file():
            lines.append(f"| {script} | – | not implemented yet | – |")
            continue
        t = time.perf_counter()
        extra = forwarded if script in SIGNIFICANCE_SCRIPTS else []
        proc = subprocess.run([sys.executable, str(HERE / script), "--out", str(out), *extra], cwd=REPO, env=env)
        took = time.perf_counter() - t
        if proc.returncode != 0:
            failed += 1
        for rep in reports:
            status = summary(out / rep) if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
            lines.append(f"| {script} | [{rep}]({rep}) | {status} | {took:.0f} s |")
        print(f"{script}: {took:.0f} s", file=sys.stderr)
    (out / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print((out / "index.md").read_text())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
