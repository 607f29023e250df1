"""`python eval.py ...`: the README's first command, an alias of `quotefinder record` (or, with `--refresh RUN`, of
`quotefinder refresh RUN`): each command line of the old forms mapped onto its verb (`commands.aliases.eval_words`),
which does the rest, as `quotefinder VERB ...` does."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .commands import alias
from .commands.aliases import eval_words

if TYPE_CHECKING:
    import httpx


def main(argv: list[str] | None = None, env: dict[str, str] | None = None,
         transport: httpx.AsyncBaseTransport | None = None) -> int:
    verb, words = eval_words(sys.argv[1:] if argv is None else argv)
    return alias(verb, words, env=env, transport=transport)


if __name__ == "__main__":  # `python -m quotefinder.evalcmd`, as the benchmarks run it
    sys.exit(main())
