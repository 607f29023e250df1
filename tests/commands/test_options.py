"""commands/options.py: the verbs' shared option groups, and `launch` (a sweeping verb over the configuration)."""

from __future__ import annotations

import pytest

from quotefinder.commands.options import RULE, add_gate, add_grid, add_guarantee, add_rule, verb_parser


def parser_of() -> tuple:
    parser = verb_parser("try", "RUN [options]", "A verb to try.", ("runs/a", "runs/b --at 0.3,0.9"))
    add_grid(parser)
    add_rule(parser)
    add_guarantee(parser)
    add_gate(parser, bounds=False)
    return parser, parser.format_help()


def test_an_option_not_typed_is_left_unset_for_the_defaults_of_the_work() -> None:
    parser, _ = parser_of()
    args = parser.parse_args(["--wrong-cost", "3", "--grid", "has_answer=0:1:0.5"])
    assert vars(args) == {"wrong_cost": 3.0, "grid": [("has_answer", "0:1:0.5")], "verb": "try"}


def test_options_are_typed_whole_and_checked(capsys: pytest.CaptureFixture[str]) -> None:
    parser, _ = parser_of()
    for words, error in ((["--wrong", "3"], "unrecognized arguments: --wrong 3"),
                         (["--delta", "2"], "'2': --delta must be a number strictly between 0 and 1"),
                         (["--max-wrong", "0"], "unrecognized arguments: --max-wrong 0")):
        with pytest.raises(SystemExit):
            parser.parse_args(words)
        assert error in capsys.readouterr().err


def test_the_guarantee_joins_the_rule_and_the_examples_come_last() -> None:
    _, text = parser_of()
    assert text.count(f"{RULE}:") == 1 and "the guarantee:" not in text
    assert text.index("--max-wrong-rate") > text.index("--wrong-cost")
    assert text.rstrip().splitlines()[-3:] == ["examples:", "  quotefinder try runs/a",
                                               "  quotefinder try runs/b --at 0.3,0.9"]
