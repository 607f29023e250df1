"""One sweep without the command line (`sweep.session`): each axis's default grid, the responses a sweep needs
(the grid's, the default's and the checked point's), `run_sweep` with and without a baseline, and the options it
refuses before replaying anything."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from quotefinder.core.errors import InputError
from quotefinder.record.rundir import RunRecord
from quotefinder.sweep.analysis import Settings
from quotefinder.sweep.grid import parse_axis
from quotefinder.sweep.replay import run_system
from quotefinder.sweep.session import (
    DEFAULT_GRID,
    SweepOptions,
    grid_axes,
    needed,
    point_axes,
    run_drift,
    run_monitor,
    run_sweep,
)

COARSE = parse_axis("0:1:0.25")


def quiet(_: str) -> None:
    pass


def test_an_axis_not_given_is_its_default_grid_and_a_given_one_is_kept(ten: Path) -> None:
    record = RunRecord.require(ten)
    h_axis, a_axis = grid_axes(record, (None, None))
    assert h_axis == a_axis == parse_axis(DEFAULT_GRID)
    assert np.allclose(h_axis.values, np.arange(21) / 20) and h_axis.values[-1] == 1.0  # both ends included
    assert grid_axes(record, (COARSE, None)) == (COARSE, parse_axis(DEFAULT_GRID))


def test_a_sweep_needs_the_grid_the_default_and_the_checked_point(ten: Path) -> None:
    record = RunRecord.require(ten)
    options = SweepOptions(ten, COARSE, COARSE)
    coverage = needed(record, options, (0.5, 0.5), (0.33, 0.77))
    system, _ = run_system(record)
    recorded = [spec for spec in system.axes if spec.recorded]
    assert set(coverage) == {spec.name for spec in recorded} and coverage
    for spec in recorded:
        n = [s.name for s in system.axes].index(spec.name)
        values = coverage[spec.name]
        assert list(values) == sorted(values)
        assert {0.0, 0.25, 0.5, 0.75, 1.0, (0.5, 0.5)[n], (0.33, 0.77)[n]} == set(values)


def test_run_sweep_analyses_the_grid_it_was_given(ten: Path) -> None:
    result, comparison = run_sweep(SweepOptions(ten, COARSE, parse_axis("0:1:0.5")), say=quiet)
    assert comparison is None
    assert (result.h_axis, result.a_axis) == (COARSE, parse_axis("0:1:0.5"))
    assert result.per_repeat.shape[1:3] == (5, 3)
    assert result.replayed.record.repeats == result.per_repeat.shape[0]
    assert len(result.questions) == len(result.replayed.questions)


def test_a_run_compared_with_itself_is_no_worse(ten: Path) -> None:
    result, comparison = run_sweep(SweepOptions(ten, COARSE, COARSE, baseline=ten), say=quiet)
    assert comparison is not None and not comparison.worse
    alone, _ = run_sweep(SweepOptions(ten, COARSE, COARSE), say=quiet)
    assert np.array_equal(result.per_repeat, alone.per_repeat)  # the baseline changes nothing of the run's sweep


def test_more_folds_than_questions_are_refused(ten: Path) -> None:
    with pytest.raises(InputError, match=r"--folds 999: only \d+ question\(s\) to divide"):
        run_sweep(SweepOptions(ten, COARSE, COARSE, settings=Settings(folds=999)), say=quiet)


def test_the_checked_point_is_a_grid_of_one_cell(ten: Path) -> None:
    h_axis, a_axis = point_axes(RunRecord.require(ten), (0.35, 0.6))
    assert h_axis.values.tolist() == [0.35] and a_axis.values.tolist() == [0.6]


def test_drift_and_monitor_refuse_what_they_cannot_compare(ten: Path) -> None:
    with pytest.raises(InputError, match="is not a refresh"):
        run_drift(SweepOptions(ten, None, None))
    with pytest.raises(InputError, match="--monitor watches one cell: give it with --at"):
        run_monitor(SweepOptions(ten, None, None), [ten], 0.05, say=quiet)
    with pytest.raises(InputError, match="give the refreshes of RUN after it"):
        run_monitor(SweepOptions(ten, None, None, at=(0.5, 0.5)), [ten], 0.05, say=quiet)
    with pytest.raises(InputError, match="is not a refresh of"):
        run_monitor(SweepOptions(ten, None, None, at=(0.5, 0.5)), [ten, ten], 0.05, say=quiet)
