"""``python -m gec_meta.cache [info|clear]``: see :mod:`gec_meta.cache.info`."""

from gec_meta.cache.info import main

main()
