"""``python -m gec_meta.report DIR``: collate every run under DIR (see :mod:`.tables`)."""

from gec_meta.cli.errors import interrupted
from gec_meta.cli.report import main

try:
    status = main()
except KeyboardInterrupt:  # Ctrl-C: one line, exit 130
    status = interrupted("python -m gec_meta.report", "each summary file is written whole or not at all")
raise SystemExit(status)
