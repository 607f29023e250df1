"""The stand-in API: a real HTTP server on loopback that serves invented pages and probabilities the way the
Search and Decisions APIs do, so the demo, the tests and a dry run of CI need no key. A tool beside the product:
nothing else in `quotefinder` imports it.

    python -m quotefinder.standin scenarios/ten.yaml --port 8765         # the server (`server`)
    python -m quotefinder.standin.squad data/squad2-dev-sample.json --out scenarios/squad.json
    python -m quotefinder.standin.synthetic DIR 10000 --seed 0          # a question set of any size

The scenario format and the faults it can inject: `server`'s docstring, or `python -m quotefinder.standin --help`.
"""

from .server import (
    REWRITTEN,
    SYNTHETIC_HEADERS,
    FakeApi,
    Faults,
    Later,
    Reply,
    Scenario,
    ScenarioError,
    StandIn,
    later,
    load_scenario,
    main,
)

__all__ = ["REWRITTEN", "SYNTHETIC_HEADERS", "FakeApi", "Faults", "Later", "Reply", "Scenario", "ScenarioError",
           "StandIn", "later", "load_scenario", "main"]
