"""`python -m quotefinder.questions import SRC --out questions/NAME.yaml`: a question set from labelled data."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import cli
from ..core.errors import QuoteFinderError
from .importer import import_questions

EPILOG = """\
sources, by extension:
  .json    SQuAD 2.0's layout: data[].paragraphs[].qas[] with is_impossible and answers[].text
  .jsonl   one JSON object per line: question (required), id, expect, answers (a list, or one text)
  .csv     a header row naming the columns question (required), id, expect, answers; several
           answers in one cell are separated by | (write \\| for a | inside an answer)

expect is answer, no-answer, or empty for an unlabelled question (gold answers imply answer).
Each gold answer becomes an accept pattern matching it literally (any case, any spacing, numbers
with or without thousands separators). Questions with the same text are merged.

examples:
  python -m quotefinder.questions import data/squad2-dev-sample.json --out questions/squad.yaml
  python -m quotefinder.questions import data/squad2-dev-sample.json --out questions/squad-100.yaml \\
      --sample 100 --seed 1
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m quotefinder.questions",
                                     description="Question sets for eval.py.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    imported = commands.add_parser("import", help="write a question file from a labelled data set",
                                   description="Write a questions YAML file from SQuAD 2.0 JSON, JSON Lines or CSV.",
                                   epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    imported.add_argument("source", type=Path, metavar="SRC", help="a .json (SQuAD 2.0), .jsonl or .csv file")
    imported.add_argument("--out", type=Path, required=True, metavar="FILE", help="the question file to write (.yaml)")
    imported.add_argument("--sample", type=cli.positive_int, metavar="N",
                          help="keep N questions, drawn at random with each label's share kept (default: all); more "
                          "than SRC holds is an error")
    imported.add_argument("--seed", type=cli.count, default=0, help="seed of --sample (default 0)")
    imported.add_argument("--force", action="store_true", help="replace FILE if it exists")
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    command = " ".join(["python -m quotefinder.questions import", str(args.source), "--out", str(args.out),
                        *([f"--sample {args.sample} --seed {args.seed}"] if args.sample else [])])
    try:
        found = import_questions(args.source, args.out, args.sample, args.seed, args.force, command)
    except QuoteFinderError as error:
        cli.report_error("import", error)
        return cli.EXIT_ERROR
    answer, none, unlabelled = found.counts()
    sampled = f" (sampled from {found.sampled_from})" if found.sampled_from else ""
    print(f"Wrote {args.out}: {len(found.questions)} questions{sampled}, {answer} answer, {none} no-answer, "
          f"{unlabelled} unlabelled, from {found.read} read in {args.source} ({found.source_format}).")
    if found.merged:
        conflicts = f"; {len(found.conflicts)} of them with labels that disagree, left unlabelled" \
            if found.conflicts else ""
        print(f"{found.merged} question(s) had the same text as an earlier one and were merged{conflicts}.")
    if found.wordless:
        print(f"{found.wordless} gold answer(s) without a letter or digit made no accept pattern (they would "
              "match any quote).")
    return cli.EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
