"""The curve is the contract between a system and everything after replay: the quote finder's curve is its own
rule everywhere (values exactly on edges and bounds included), and the grid and the statistics read any curve,
not only the quote finder's shape, exactly as a slow per-cell lookup does."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from conftest import random_item
from quotefinder.core.plugin import MISSING, Curve, Piece, Quote, values_below
from quotefinder.core.registry import axis_spec, system
from quotefinder.questions import OUTCOMES, Question
from quotefinder.recipe.system import QUOTE_FINDER
from quotefinder.sweep.grid import CODE, Judged, JudgedCurve, MissingPiece, Table, at_point
from quotefinder.sweep.stats import ScoreModel, outcome_scores


def probes(values: list[float]) -> list[float]:
    """Every value, the floats just either side of it, and the ends: where a wrong comparison shows."""
    found = {0.0, 1.0, -0.5, 1.5}
    for v in values:
        found |= {v, math.nextafter(v, -math.inf), math.nextafter(v, math.inf)}
    return sorted(found)


def test_the_quote_finders_curve_is_its_decision_at_every_point_exactly_on_cutoffs_too() -> None:
    """300 random questions (ties, 0-5 results, sets with different compare probabilities): at every has_answer
    value and compare probability of the question, and the floats either side, `curve(t).at(x, y)` is the piece
    `decide` gives, quote and closest candidate alike."""
    rng = random.Random(7)
    checked = 0
    for n in range(300):
        _, trace = random_item(rng, n)
        curve = QUOTE_FINDER.curve(trace)
        xs = probes([c.has_answer for c in trace.candidates])
        ys = probes([p for values in trace.compares.values() for p in values])
        for x in xs:
            for y in ys:
                assert curve.at(x, y) == QUOTE_FINDER.decide(trace, x, y), (n, x, y)
                checked += 1
    assert checked > 10_000


def test_a_value_equal_to_an_edge_or_bound_falls_below_it() -> None:
    assert values_below((0.3, 0.5), 0.3) == 0 and values_below((0.3, 0.5), 0.30000000000000004) == 1
    quote = Quote("s", "t", "https://u.example", None, 0.7, "answers")
    curve = Curve((0.3,), ((0.7,), ()), ((Piece(quote), Piece(None, quote)), (Piece(None),)))
    assert curve.at(0.3, 0.7).quoted == quote  # has_answer 0.3 >= 0.3 and 0.7 >= 0.7: quoted
    assert curve.at(0.3, math.nextafter(0.7, 1)).quoted is None
    assert curve.at(math.nextafter(0.3, 1), 0.0).shown is None


def test_a_malformed_curve_is_refused() -> None:
    with pytest.raises(ValueError, match="one segment more"):
        Curve((0.3,), ((),), ((Piece(None),),))
    with pytest.raises(ValueError, match="one piece more"):
        Curve((), ((0.5,),), ((Piece(None),),))


def test_the_registry_names_the_systems_and_their_axes() -> None:
    assert system("quote-finder") is QUOTE_FINDER
    with pytest.raises(KeyError, match="the systems are: quote-finder"):
        system("one-shot-typo")
    assert [a.name for a in QUOTE_FINDER.axes] == ["has_answer", "answer"]
    assert axis_spec(QUOTE_FINDER, "answer").removes_quotes and not axis_spec(QUOTE_FINDER, "has_answer").removes_quotes
    with pytest.raises(KeyError, match="its axes are: has_answer, answer"):
        axis_spec(QUOTE_FINDER, "max_sources")


# ---- any curve, not only the quote finder's shape -----------------------------------------------------------


def random_curve(rng: random.Random, texts: list[str]) -> Curve:
    """Up to 4 edges, each segment up to 4 bounds, pieces quoting one of `texts` or not: shapes no quote finder
    makes (a quote above a no-answer piece, several quotes along one segment), on grid values and off them."""
    def values(count: int) -> tuple[float, ...]:
        return tuple(sorted({rng.choice([0.0, 0.05, 0.5, 0.55, 1.0, rng.random()]) for _ in range(count)}))

    edges = values(rng.randint(0, 4))
    bounds = tuple(values(rng.randint(0, 4)) for _ in range(len(edges) + 1))
    pieces = tuple(tuple(Piece(Quote(rng.choice(texts), "t", "https://x.example", None)) if rng.random() < 0.6
                         else Piece(None) for _ in range(len(b) + 1)) for b in bounds)
    return Curve(edges, bounds, pieces)


def random_questions(rng: random.Random, count: int) -> list[Question]:
    """Questions of every label, most of those with an accept pattern (the label decides where it is not an answer)."""
    return [Question(f"q{n}", f"question {n}", rng.choice(["answer", "no-answer", None]),
                     (r"\bright\b",) if rng.random() < 0.8 else ()) for n in range(count)]


def test_the_grid_reads_any_curve_exactly_as_a_slow_lookup_and_so_do_the_scores() -> None:
    """200 questions x 3 repeats of random multi-piece curves on a 21 x 21 grid: every count, the quoted counts,
    the per-question scores and ScoreModel's sums of scores, squares and products equal a loop over every cell
    and question calling `Curve.at`."""
    rng = random.Random(11)
    grid = np.round(np.linspace(0, 1, 21), 2)
    questions = random_questions(rng, 200)
    runs = [[JudgedCurve.of(q, random_curve(rng, ["right", "wrong", "other"])) for q in questions] for _ in range(3)]
    tables = [Table.of(run, grid) for run in runs]
    values = outcome_scores(2.0)
    slow = np.zeros((3, 21, 21, len(OUTCOMES)), dtype=np.int64)
    scores = np.zeros((len(questions), 21, 21))
    quoted = np.zeros((3, 21, 21), dtype=np.int64)
    for r, run in enumerate(runs):
        for i, x in enumerate(grid):
            for j, y in enumerate(grid):
                for q, judged in enumerate(run):
                    piece, code = judged.at(float(x), float(y))
                    assert code == CODE[judged.question.judge(piece.text)]
                    slow[r, i, j, code] += 1
                    quoted[r, i, j] += piece.quoted is not None
                    scores[q, i, j] += values[code] / 3
    # the same pieces row by row, merged into bands afresh (as the simulations make their tables)
    remade = [Table.of_rows(grid, *(t.per_row(array) for array in (t.bounds, t.codes, t.quoted))) for t in tables]
    for r, table in enumerate([*tables, *remade]):
        r %= len(tables)
        assert np.array_equal(table.counts(grid), slow[r])
        assert np.array_equal(table.quotes(grid), quoted[r])
        for j in (0, 7, 20):
            assert np.array_equal(table.outcomes(float(grid[j])),
                                  [[judged.at(float(x), float(grid[j]))[1] for x in grid] for judged in runs[r]])
        for i in (0, 11, 20):
            assert np.array_equal(table.quoted_along(i, grid), [[judged.at(float(grid[i]), float(y))[0].quoted
                                                                  is not None for y in grid] for judged in runs[r]])
    weights = np.array([rng.choice([0.5, 1.0, 2.0]) for _ in questions])
    assert np.array_equal(ScoreModel(remade, grid, values, weights).grid(np.ones(len(questions))),
                          ScoreModel(tables, grid, values, weights).grid(np.ones(len(questions))))
    model = ScoreModel(tables, grid, values, weights)
    counts = np.array([rng.choice([0, 1, 2]) for _ in questions], dtype=float)
    x = weights[:, None, None] * scores
    assert np.allclose(model.grid(counts), np.einsum("q,qij->ij", counts, x))
    assert np.allclose(model.grid(counts, power=2), np.einsum("q,qij->ij", counts, x**2))
    factor = x[:, 4, 9]
    assert np.allclose(model.grid(counts, factor=factor), np.einsum("q,qij->ij", counts * factor, x))
    for cell in ((0, 0), (4, 9), (20, 20)):
        assert np.allclose(model.per_question(*cell), x[:, cell[0], cell[1]])


def test_the_decisions_at_a_point_are_each_curve_s_piece_there_exactly_on_edges_and_bounds_too() -> None:
    """`at_point` (every question's decision at one pair of cutoffs) is, for each question, the piece of its curve
    found by counting the edges and then the bounds below the point, with that piece's judged code, at every edge
    and bound of any curve, the floats either side of them and the ends; and a point in a piece the replay does not
    hold is an error naming the question."""
    rng = random.Random(12)
    curves = [JudgedCurve.of(q, random_curve(rng, ["right", "wrong", "other"])) for q in random_questions(rng, 150)]
    xs = probes([e for c in curves for e in c.curve.edges])
    ys = probes([b for c in curves for segment in c.curve.bounds for b in segment])

    def counted(c: JudgedCurve, x: float, y: float) -> Judged:
        k = sum(1 for e in c.curve.edges if e < x)  # a value equal to an edge or a bound falls below it
        j = sum(1 for b in c.curve.bounds[k] if b < y)
        return Judged(c.curve.pieces[k][j], OUTCOMES[c.codes[k][j]])

    for x in xs[:: max(1, len(xs) // 25)] + [0.05, 0.5, 0.55]:
        for y in ys[:: max(1, len(ys) // 25)] + [0.05, 0.5, 0.55]:
            assert at_point(curves, x, y) == [counted(c, x, y) for c in curves]
    holed = JudgedCurve.of(curves[0].question, Curve((0.5,), ((), (0.25,)), ((Piece(None),), (MISSING, Piece(None)))))
    assert at_point([holed], 0.5, 0.9) == [Judged(Piece(None), OUTCOMES[holed.codes[0][0]])]
    with pytest.raises(MissingPiece, match="q0"):
        at_point([holed], 0.6, 0.25)


def test_a_curve_is_judged_piece_by_piece_as_judge_quote_judges_each() -> None:
    """500 random questions (answer, no-answer, unlabelled; accept patterns or none; human verdicts on some
    sentences) and curves whose pieces share quote objects, hold equal quotes in distinct objects, quote several
    passages, quote broken answers, or have no response: every code `JudgedCurve.of` gives is the one calling
    `Question.judge_quote` on that piece gives (-1 where the replay holds no response)."""
    rng = random.Random(23)
    texts = ["right", "wrong", "other", "right answer"]
    checked = dict.fromkeys(OUTCOMES, 0)
    for n in range(500):
        verdicts = {text: rng.choice(OUTCOMES[:2]) for text in texts if rng.random() < 0.2}
        expect = rng.choice(["answer", "no-answer", None])
        accept = (r"\bright\b",) if expect == "answer" and rng.random() < 0.7 else ()
        question = Question(f"q{n}", f"question {n}", expect, accept, verdicts=verdicts)
        shared = [Quote(rng.choice(texts), "t", "https://x.example", None,
                        passages=tuple(rng.sample(texts, 2)) if rng.random() < 0.3 else (),
                        broken="cites a source it was not given" if rng.random() < 0.2 else "") for _ in range(3)]

        def piece(shared: list[Quote] = shared) -> Piece:
            kind = rng.randrange(5)
            if kind == 0:
                return MISSING
            if kind == 1:
                return Piece(None, rng.choice(shared))
            quote = rng.choice(shared)
            return Piece(quote if kind < 4 else Quote(quote.text, "t", "https://x.example", None))

        edges = tuple(sorted({rng.random() for _ in range(rng.randint(0, 3))}))
        bounds = tuple(tuple(sorted({rng.random() for _ in range(rng.randint(0, 3))})) for _ in range(len(edges) + 1))
        curve = Curve(edges, bounds, tuple(tuple(piece() for _ in range(len(b) + 1)) for b in bounds))
        expected = tuple(tuple(-1 if p.missing else CODE[question.judge_quote(p.quoted)] for p in segment)
                         for segment in curve.pieces)
        assert JudgedCurve.of(question, curve).codes == expected, n
        for code in (c for segment in expected for c in segment if c >= 0):
            checked[OUTCOMES[code]] += 1
    assert all(checked.values()), checked  # every outcome met


def test_a_cell_in_a_piece_the_replay_does_not_hold_is_an_error_not_a_count() -> None:
    question = Question("q", "question", "answer", (r"x",))
    curve = Curve((0.5,), ((), ()), ((MISSING,), (Piece(None),)))
    table = Table.of([JudgedCurve.of(question, curve)], np.array([0.6, 0.7]))
    assert table.counts(np.array([0.1]))[..., CODE[OUTCOMES[2]]].tolist() == [[1], [1]]  # above the edge: held
    with pytest.raises(MissingPiece):
        Table.of([JudgedCurve.of(question, curve)], np.array([0.5])).counts(np.array([0.1]))
