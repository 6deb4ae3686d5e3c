"""``python -m rgs``: the ``rgs`` command line (:mod:`rgs.cli`)."""
import sys

from rgs.cli import main

if __name__ == "__main__":
    sys.exit(main())
