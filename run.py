"""The checkout's Hydra entry point, the same as the installed ``gec-meta-run``.

    python run.py dataset=seeda dataset.setting=base metric=errant aggregation=trueskill
    python run.py -m metric=errant,length aggregation=average,trueskill
    python -m gec_meta.report outputs/multirun/<date>

Each job writes ``results.json`` (with its signature), ``results.md`` and the resolved config
into its Hydra output folder (see :mod:`gec_meta.cli.run`).
"""

from gec_meta.cli.run import console_main

if __name__ == "__main__":
    console_main()
