"""`python sweep.py ...`: the README's second command, an alias of the sweeping verbs of `quotefinder` (`sweep`,
`compare`, `drift`, `monitor`, `review`): each command line of the old forms mapped onto its verb
(`commands.aliases.sweep_words`), which does the rest, as `quotefinder VERB ...` does."""

from __future__ import annotations

import sys
from collections.abc import Callable

from .commands import alias
from .commands.aliases import sweep_words


def main(argv: list[str] | None = None, ask: Callable[[str], str] | None = None) -> int:
    verb, words = sweep_words(sys.argv[1:] if argv is None else argv)
    return alias(verb, words, **({"ask": ask} if ask is not None and verb == "review" else {}))


if __name__ == "__main__":  # `python -m quotefinder.sweepcmd`, as the benchmarks run it
    sys.exit(main())
