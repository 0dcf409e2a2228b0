"""``python -m swigflow ...`` runs the ``swigflow`` command line."""

import sys

from swigflow.cli import main

if __name__ == "__main__":
    sys.exit(main())
