"""`python -m quotefinder VERB ...`: the same as the installed `quotefinder` command."""

import sys

from .commands import main

if __name__ == "__main__":
    sys.exit(main())
