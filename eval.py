"""Record a question set's API responses and show its decisions: see `python eval.py --help`."""

import sys

from quotefinder.evalcmd import main

if __name__ == "__main__":
    sys.exit(main())
