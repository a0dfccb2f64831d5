"""`python -m pipec` runs the `pipec` command."""

import sys

from .cli import main

sys.exit(main())
