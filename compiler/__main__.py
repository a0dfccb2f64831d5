"""`python -m compiler` is `pipec`."""

import sys

from .cli import main

sys.exit(main())
