"""``python -m gec_meta.report DIR``: collate every run under DIR (see :mod:`.tables`)."""

from gec_meta.report.tables import main

raise SystemExit(main())
