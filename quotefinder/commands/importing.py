"""`quotefinder import DATASET`: a question file from a labelled data set (SQuAD 2.0 JSON, JSON Lines, CSV)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import cli
from ..core import values
from ..core.errors import QuoteFinderError
from ..questions.importer import import_questions
from .options import verb_parser

SOURCES = """\
sources, by extension:
  .json    SQuAD 2.0's layout: data[].paragraphs[].qas[] with is_impossible and answers[].text
  .jsonl   one JSON object per line: question (required), id, expect, answers (a list, or one text)
  .csv     a header row naming the columns question (required), id, expect, answers; several
           answers in one cell are separated by | (write \\| for a | inside an answer)

expect is answer, no-answer, or empty for an unlabelled question (gold answers imply answer).
Each gold answer becomes an accept pattern matching it literally (any case, any spacing, numbers
with or without thousands separators). Questions with the same text are merged.
"""
PROG = "quotefinder import"
EXAMPLES = ("data/squad2-dev-sample.json --out questions/squad.yaml",
            "data/squad2-dev-sample.json --out questions/squad-100.yaml --sample 100")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The import's source and options."""
    parser.add_argument("source", type=Path, metavar="DATASET", help="a .json (SQuAD 2.0), .jsonl or .csv file")
    parser.add_argument("--out", type=Path, required=True, metavar="FILE", help="the question file to write (.yaml)")
    parser.add_argument("--sample", type=values.positive_int, default=None, metavar="N",
                        help="keep N questions, drawn at random with each label's share kept (default: all); more "
                        "than DATASET holds is an error")
    parser.add_argument("--seed", type=values.seed, default=0, help="seed of --sample (default 0)")
    parser.add_argument("--force", action="store_true", default=False, help="replace FILE if it exists")


def build_parser() -> argparse.ArgumentParser:
    parser = verb_parser("import", "DATASET --out FILE [options]",
                         "Write a questions YAML file from a labelled data set.\n\n" + SOURCES, EXAMPLES)
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Import as `args` say; the command that does it is written into the file's header."""
    words = " ".join([PROG, str(args.source), "--out", str(args.out),
                      *([f"--sample {args.sample} --seed {args.seed}"] if args.sample else [])])
    try:
        found = import_questions(args.source, args.out, args.sample, args.seed, args.force, words)
    except QuoteFinderError as error:
        cli.report_error(PROG, error)
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(sys.argv[2:] if argv is None else argv)
    except SystemExit as done:  # --help, or a usage error argparse has printed
        return int(done.code or 0)
    return run(args)
