"""`python -m quotefinder.standin SCENARIO ...`: serve the stand-in API (`server.main`)."""

import sys

from .server import main

sys.exit(main())
