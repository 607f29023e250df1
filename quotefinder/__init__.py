"""quotefinder-eval: record a quote-finding pipeline's API responses once, then tune its cutoffs offline.

The Python API (`quotefinder.api`, docs/api.md): `open_run(path)` gives a `Run`; its `sweep(...)` a `SweepResult`
(`.decision`, `.grid`, `.questions`, `.write_report(dir)`); `compare(runs)` a `SystemsResult`; `Run.drift()` a
refresh's drift. The names are imported when first used, so `import quotefinder` stays cheap (no pandas, numpy).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["InputError", "QuoteFinderError", "Run", "SweepResult", "SystemsResult", "compare", "open_run"]

_HOMES = {"InputError": "core.errors", "QuoteFinderError": "core.errors", "Run": "api", "SweepResult": "api",
          "SystemsResult": "api", "compare": "api", "open_run": "api"}

if TYPE_CHECKING:
    from .api import Run, SweepResult, SystemsResult, compare, open_run
    from .core.errors import InputError, QuoteFinderError


def __getattr__(name: str) -> Any:
    """A public name, imported from its module the first time it is asked for (PEP 562)."""
    if name not in _HOMES:
        raise AttributeError(f"module 'quotefinder' has no attribute {name!r}")
    value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
