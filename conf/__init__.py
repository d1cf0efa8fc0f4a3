"""gec-meta's Hydra configs, installed as the package ``gec_meta.conf`` (``pkg://gec_meta.conf``)."""
