"""The Python API: what `sweep.py` does, as calls that return typed results and pandas DataFrames.

    import quotefinder
    run = quotefinder.open_run("runs/ten")
    result = run.sweep(wrong_cost=3, grid={"has_answer": "0.2:0.5:0.01"})
    result.decision            # what decision.json holds, as a dict
    result.grid                # a DataFrame, a row per cell: what grid.csv holds
    result.write_report("reports/mine")

A thin face: each call checks its keyword arguments (an `InputError` naming the option), hands them to
`sweep.session` as `SweepOptions`, and the results read `report/`'s tables and records, so a result says exactly
what the report written from it says. Comparing systems is `compare(runs)`; a refresh's drift is `Run.drift()`.
"""

from __future__ import annotations

import argparse
import io
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from . import config
from .core import values
from .core.errors import InputError
from .core.registry import axis_spec
from .core.textsafe import shown
from .record.rundir import RunRecord
from .report.directory import ReportDir, decision_json, inside_a_run, write_report, write_systems_report
from .report.systems import outcomes_frame, systems_decision, systems_frame
from .report.tables import csv_bytes, grid_table, questions_table
from .sweep.analysis import Gate, Settings, Sweep
from .sweep.compare import SIGNIFICANCE, Comparison
from .sweep.drift import Drift
from .sweep.grid import Axis, parse_axis
from .sweep.guarantee import DELTA
from .sweep.replay import run_system
from .sweep.session import SweepOptions, run_drift, run_sweep, run_systems
from .sweep.stats import LEVEL
from .sweep.systems import Systems

if TYPE_CHECKING:
    import pandas as pd

Value = float | int | str  # a value of an axis as it is written: 0.3; 5; deep


def _frame(data: bytes) -> pd.DataFrame:
    """A CSV report file's bytes read as `pandas.read_csv` reads the file."""
    import pandas as pd  # here: `import quotefinder` stays cheap

    return pd.read_csv(io.BytesIO(data))


def _decision(data: bytes) -> dict[str, Any]:
    parsed: dict[str, Any] = json.loads(data)
    return parsed


@dataclass(frozen=True)
class SweepResult:
    """One sweep of a run: `sweep` (the analysis, `sweep.analysis.Sweep`), the `comparison` with a baseline, the
    `gate` checked at `at`, and a refresh's `drift` (each None when not asked for). The tables and the decision
    are the report's own: `.grid` equals `pandas.read_csv("grid.csv")` and `.decision` `json.load(decision.json)`
    of the report `write_report` writes."""

    sweep: Sweep
    comparison: Comparison | None = None
    gate: Gate | None = None
    drift: Drift | None = None

    @property
    def decision(self) -> dict[str, Any]:
        """What decision.json holds: the action, the recommended and default cells, the guarantee..."""
        return _decision(decision_json(self.sweep, self.drift))

    @property
    def grid(self) -> pd.DataFrame:
        """A row per cell of the grid: the two axes, each outcome's count (a mean over repeats), quoted, the score,
        with repeats each count's min and max, with `max_wrong_rate` `certified`, and the evidence."""
        return _frame(csv_bytes(grid_table(self.sweep)))

    @property
    def questions(self) -> pd.DataFrame:
        """A row per question: its outcome and quote at the default and the recommended cells, where it changes
        along each axis, whether it needs a label, and with a baseline its change."""
        return _frame(csv_bytes(questions_table(self.sweep, self.comparison), text=True))

    @property
    def holds(self) -> bool:
        """Whether nothing checked failed: the gate's bounds hold, the run is not worse than the baseline, and a
        refresh has not drifted (what `sweep.py` exits 0 for)."""
        return not ((self.gate is not None and not self.gate.holds)
                    or (self.comparison is not None and self.comparison.worse)
                    or (self.drift is not None and self.drift.failed))

    def write_report(self, out: str | Path, *, plots: bool = True, html: bool = True, force: bool = False,
                     figures: Sequence[str] = ("png",)) -> Path:
        """Write the report into `out`, as `sweep.py RUN --out DIR` with the same options writes it (byte for byte:
        the summary's "Options given" line echoes the keyword arguments as the options of `sweep.py` they
        mirror, `wrong_cost=3` as `--wrong-cost 3`). `plots=False` and `html=False` are `--no-plots` and
        `--no-html`; `figures=("png", "svg")` is `--figures png,svg` (png, svg, pdf); `force` is `--force`.
        Returns the directory."""
        target = _report_out(out, [self.sweep.replayed.run_dir,
                                   self.comparison.baseline.run_dir if self.comparison is not None else None])
        write_report(ReportDir(target, force=force), self.sweep, self.comparison, self.gate, plots=plots,
                     page=html, drift=self.drift, formats=figures)
        return target


@dataclass(frozen=True)
class SystemsResult:
    """Several runs compared (`compare`): each run's `sweeps`, and `systems`, the comparison
    (`sweep.systems.Systems`)."""

    sweeps: tuple[Sweep, ...]
    systems: Systems

    @property
    def decision(self) -> dict[str, Any]:
        """What the comparison's decision.json holds: the system and the cell to ship."""
        record = {**systems_decision(self.systems), "evidence": self.systems.evidence,
                  "questions": len(self.systems.questions)}
        return _decision(json.dumps(record, sort_keys=True, allow_nan=False).encode())

    @property
    def table(self) -> pd.DataFrame:
        """A row per system: what systems.csv holds."""
        return _frame(csv_bytes(systems_frame(self.systems)))

    @property
    def questions(self) -> pd.DataFrame:
        """Every question's outcome in every system: what the comparison's questions.csv holds."""
        return _frame(csv_bytes(outcomes_frame(self.systems), text=True))

    def write_report(self, out: str | Path, *, html: bool = True, force: bool = False) -> Path:
        """Write the comparison's report into `out`, as `sweep.py RUN_A RUN_B --out DIR` does."""
        target = _report_out(out, [sweep.replayed.run_dir for sweep in self.sweeps])
        write_systems_report(ReportDir(target, force=force), list(self.sweeps), self.systems, page=html)
        return target


def _checked(option: str, parse: Callable[[str], Any], value: Any) -> None:
    """`value` checked by the type of the command's option it mirrors (`parse`, from `cli`), as typed: the API
    refuses exactly what the command refuses; `InputError` naming the option."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{option}={shown(value)}: give a number")
    try:
        parse(repr(value) if isinstance(value, float) else str(value))
    except argparse.ArgumentTypeError as error:
        raise InputError(f"{option}={shown(value)}: {error}") from None


def _report_out(out: str | Path, runs: Sequence[Path | None]) -> Path:
    """`out`, where a report may go (`directory.inside_a_run`); `InputError` as the command's refusal."""
    if refusal := inside_a_run(Path(out), runs):
        raise InputError(f"out: {refusal}")
    return Path(out)


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def _shown(value: object) -> str:
    """A keyword argument's value as it would be typed on a command line."""
    if isinstance(value, float) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return str(value)


@dataclass(frozen=True)
class Run:
    """A run directory recorded by eval.py (`open_run`): `path`, and `record`, its run.json."""

    path: Path
    record: RunRecord

    def _axes(self, grid: Mapping[str, str] | None) -> tuple[Axis | None, Axis | None]:
        under_test = run_system(self.record)[0]
        axes: list[Axis | None] = [None, None]
        if grid is not None and not isinstance(grid, Mapping):
            raise InputError(f"grid={shown(grid)}: give a mapping of an axis's name to its values, e.g. "
                             "{'has_answer': '0:1:0.05'}")
        for name, text in (grid or {}).items():
            try:
                spec = axis_spec(under_test, name)
            except KeyError as unknown:
                raise InputError(f"grid={{{name!r}: ...}}: {unknown.args[0]}") from None
            if not isinstance(text, str):
                raise InputError(f"grid={{{name!r}: {text!r}}}: write the values as text, e.g. '0:1:0.05' (or 'A,B' "
                                 "for an axis of names or whole numbers)")
            axes[under_test.axes.index(spec)] = parse_axis(text, f"grid {name}", spec)
        return axes[0], axes[1]

    def _point(self, at: Sequence[Value]) -> tuple[float, float]:
        under_test = run_system(self.record)[0]
        values = list(at) if isinstance(at, Sequence | np.ndarray) and not isinstance(at, str | bytes) else None
        if values is None or len(values) != 2:
            raise InputError(f"at={shown(at)}: give a value of each axis, as a pair "
                             f"({', '.join(s.name for s in under_test.axes)})")
        found = []
        for spec, value in zip(under_test.axes, values, strict=True):
            number = value.item() if isinstance(value, np.generic) else value  # (a numpy number, as Python's)
            try:
                found.append(spec.read(number))
            except (ValueError, TypeError) as error:
                raise InputError(f"at={shown(at)}: {spec.name} {shown(value)} is not a value of that axis "
                                 f"({error})") from None
        return found[0], found[1]

    def _options(self, takes: frozenset[str], **given: Any) -> SweepOptions:
        """The `SweepOptions` the keyword arguments `given` stand for over the project's configuration (the keys
        in `takes`; `_configured`), checked (`_checked_options`)."""
        chosen, used, entries = self._configured(given, takes)
        return self._checked_options(typed=given, configured=(used, entries), **chosen)

    def _configured(self, given: dict[str, Any], takes: frozenset[str]
                    ) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]:
        """`given` (keyword arguments; None: not given) over the project's configuration (`config.found`, as the
        commands find it): each key in `takes` the call leaves None takes the configuration's value, and the grid
        the configuration's axes the call does not name; with the keys taken and the summary's entries for them
        (`config.echoed`). `InputError` (a `ConfigError`)
        naming the file and the key for a bad configuration."""
        found = config.found()
        if not found.values:
            return given, (), ()
        under_test = run_system(self.record)[0]
        chosen, used = dict(given), []
        for key, value in config.read(found, under_test).items():
            if key not in takes:
                continue
            if key == "grid":
                if not isinstance(given.get("grid") or {}, Mapping):
                    continue  # (`_axes` says how to give a grid)
                named = dict(given.get("grid") or {})
                if any(name not in named for name in value):
                    chosen["grid"] = {**named, **{name: text for name, text in value.items() if name not in named}}
                    used.append(key)
            elif given.get(key) is None:
                chosen[key] = config.written_point(value, under_test) if key == "at" else value
                used.append(key)
        return chosen, tuple(used), config.echoed(found, used)

    def _checked_options(self, *, typed: dict[str, Any], configured: tuple[tuple[str, ...], tuple[str, ...]],
                         grid: Mapping[str, str] | None = None, wrong_cost: float | None = None,
                         max_wrong_rate: float | None = None, delta: float | None = None,
                         answerable_share: float | None = None, level: float = LEVEL, folds: int | None = None,
                         seed: int = 0, at: Sequence[Value] | None = None, baseline: str | Path | None = None,
                         significance: float = SIGNIFICANCE, strict: bool = False,
                         questions: str | Path | None = None, allow_incomplete: bool = False,
                         jobs: int = 1) -> SweepOptions:
        """The `SweepOptions` `sweep`'s keyword arguments stand for, checked: `InputError` naming the option for a
        value it does not take. The summary echoes what was `typed` as its option, and what the configuration set
        (`configured`: its keys, and their entries) as coming from its file."""
        wrong_cost = 2.0 if wrong_cost is None else wrong_cost
        delta = DELTA if delta is None else delta
        _checked("wrong_cost", values.wrong_cost, wrong_cost)
        for option, value in (("max_wrong_rate", max_wrong_rate), ("delta", delta),
                              ("answerable_share", answerable_share), ("level", level),
                              ("significance", significance)):
            _checked(option, values.open_unit(option), value)
        for option, count, parse in (("folds", folds, values.folds), ("seed", seed, values.seed),
                                     ("jobs", jobs, values.jobs)):
            _checked(option, parse, count)
        point = None if at is None else self._point(at)  # (checked before it is echoed)
        first, second = self._axes(grid)
        for option, switch in (("strict", strict), ("allow_incomplete", allow_incomplete)):
            if not isinstance(switch, bool):
                raise InputError(f"{option}={shown(switch)}: give True or False")
        for option, path in (("baseline", baseline), ("questions", questions)):
            if path is not None and not isinstance(path, str | os.PathLike):
                raise InputError(f"{option}={shown(path)}: give a path, e.g. 'runs/old'")
        if strict and baseline is None:
            raise InputError("strict=True makes the comparison with a baseline stricter: give baseline=RUN")
        if baseline is not None and Path(baseline).resolve() == self.path.resolve():
            raise InputError(f"baseline={shown(str(baseline))}: the run swept; compare it with an earlier run of its "
                             "own")
        echo: list[str] = []
        given: tuple[tuple[str, Any], ...] = (
            ("wrong_cost", wrong_cost), ("max_wrong_rate", max_wrong_rate), ("delta", delta),
            ("answerable_share", answerable_share), ("level", level), ("folds", folds), ("seed", seed),
            ("at", None if at is None else tuple(v.item() if isinstance(v, np.generic) else v for v in at)),
            ("baseline", baseline), ("significance", significance), ("strict", strict), ("questions", questions),
            ("allow_incomplete", allow_incomplete))
        for name, value in given:
            default = _DEFAULTS.get(name)
            if value is None or value == default or name in configured[0]:
                continue
            flag = "--" + name.replace("_", "-")
            as_typed = ",".join(_shown(v) for v in value) if name == "at" else value
            echo.append(flag if value is True else f"{flag} {_shown(as_typed)}")
        echo = [f"--grid {name}={text}" for name, text in (typed.get("grid") or {}).items()] + echo
        echo += configured[1]
        settings = Settings(wrong_cost=float(wrong_cost), folds=folds, seed=seed, level=float(level),
                            max_wrong_rate=_float(max_wrong_rate), delta=float(delta),
                            answerable_share=_float(answerable_share), options=tuple(echo))  # (floats, as parsed)
        return SweepOptions(run=self.path, first=first, second=second, settings=settings,
                            questions=None if questions is None else Path(questions),
                            allow_incomplete=allow_incomplete, jobs=jobs, at=point,
                            baseline=None if baseline is None else Path(baseline), significance=float(significance),
                            strict=strict)

    def sweep(self, *, grid: Mapping[str, str] | None = None, wrong_cost: float | None = None,
              max_wrong_rate: float | None = None, delta: float | None = None, answerable_share: float | None = None,
              level: float = LEVEL, folds: int | None = None, seed: int = 0, at: Sequence[Value] | None = None,
              max_wrong: int | None = None, min_correct: int | None = None, baseline: str | Path | None = None,
              significance: float = SIGNIFICANCE, strict: bool = False, questions: str | Path | None = None,
              allow_incomplete: bool = False, jobs: int = 1) -> SweepResult:
        """Replay the run over the grid and analyse it, as `sweep.py RUN` with the same options does. The keyword
        arguments mirror its options: `grid={"has_answer": "0:1:0.05", "answer": "0.5:1:0.01"}` (an axis's
        values by its name, as --grid NAME=...), `wrong_cost`, `max_wrong_rate`, `delta`, `answerable_share`,
        `level`, `folds`, `seed`, `at` (a value of each axis, `(0.3, 0.9)`), `max_wrong`, `min_correct`,
        `baseline` (a run), `significance`, `strict`, `questions` (a question file), `allow_incomplete`, `jobs`.
        What the project's configuration sets (quotefinder.toml, found as the commands find it: `config`) is used
        where the call leaves it out, as the command uses it. `InputError` naming the option for a value it does
        not take or options that do not go together; checks that fail do not raise: see `SweepResult.holds`."""
        gates, gated_by_file, from_file = self._configured({"max_wrong": max_wrong, "min_correct": min_correct}, _GATES)
        max_wrong, min_correct = gates["max_wrong"], gates["min_correct"]
        _checked("max_wrong", values.count, max_wrong)
        _checked("min_correct", values.count, min_correct)
        chosen = self._options(_SWEPT, grid=grid, wrong_cost=wrong_cost, max_wrong_rate=max_wrong_rate, delta=delta,
                               answerable_share=answerable_share, level=level, folds=folds, seed=seed, at=at,
                               baseline=baseline, significance=significance, strict=strict, questions=questions,
                               allow_incomplete=allow_incomplete, jobs=jobs)
        gated = max_wrong is not None or min_correct is not None or chosen.settings.max_wrong_rate is not None
        if chosen.at is None and (max_wrong is not None or min_correct is not None):
            raise InputError("max_wrong and min_correct check a point: give it with at=(H, A)")
        if chosen.at is not None and not (gated or chosen.baseline is not None):
            raise InputError("at=... names the point to check, but nothing is checked there: add max_wrong, "
                             "min_correct or max_wrong_rate (or baseline=RUN to compare there)")
        echo = chosen.settings.options + tuple(f"--{name.replace('_', '-')} {value}" for name, value in
                                               (("max_wrong", max_wrong), ("min_correct", min_correct))
                                               if value is not None and name not in gated_by_file) + from_file
        chosen = replace(chosen, settings=replace(chosen.settings, options=echo))
        result, comparison = run_sweep(chosen, say=lambda line: None)
        gate = result.gate(chosen.at, max_wrong, min_correct) if chosen.at is not None and gated else None
        return SweepResult(result, comparison, gate)

    def drift(self, original: str | Path | None = None, **options: Any) -> SweepResult:
        """This run, a refresh (eval.py --refresh), swept and compared with the run it refreshes (`original`, else
        the one its run.json names), as `sweep.py RUN --drift [ORIGINAL]` does: the result's `drift` and its
        decision's "drift". The keyword arguments are `sweep`'s but `baseline` (the original is the baseline):
        `at` is the shipped cell (default: the original's recommended cell), `max_wrong_rate` the drift's test of
        the wrong-answer rate now.

        The summary echoes `--drift` (or `--drift ORIGINAL`) and then the options, each on its own; `sweep.py`'s
        own echo differs when `--drift` is followed by another option (it reads that option as --drift's value)."""
        if "baseline" in options:
            raise InputError("baseline: the drift is the comparison with the original run; leave baseline out")
        chosen = self._options(_DRIFTED, **options)
        echo = ("--drift" if original is None else f"--drift {original}", *chosen.settings.options)
        chosen = replace(chosen, settings=replace(chosen.settings, options=echo))
        result, found = run_drift(chosen, None if original is None else Path(original),
                                  chosen.settings.max_wrong_rate)
        return SweepResult(result, drift=found)


# The configuration's keys each call takes, as the verb it mirrors does (`sweep`'s gates apart; the drift's too,
# which the API does not check)
_GATES = frozenset({"max_wrong", "min_correct"})
_SWEPT = frozenset(config.KEYS) - _GATES
_DRIFTED = _SWEPT - {"baseline"}
_COMPARED = _SWEPT - {"at", "baseline"}
_DEFAULTS: dict[str, object] = {"wrong_cost": 2.0, "delta": DELTA, "level": LEVEL, "seed": 0,
                                "significance": SIGNIFICANCE, "strict": False, "allow_incomplete": False}


def open_run(path: str | Path) -> Run:
    """The run recorded in the directory `path` (eval.py's output, e.g. "runs/ten"); `InputError` when it holds
    none. Reports name the run as `path` is written, so give it as you would to `sweep.py`."""
    where = Path(path)
    return Run(where, RunRecord.require(where))


def compare(runs: Sequence[str | Path | Run], **options: Any) -> SystemsResult:
    """Several runs of one question set (each its own system or pipeline), each swept with the same keyword
    arguments (`Run.sweep`'s, without the checks at a point) and tuned by its own rule, then compared on
    cross-validated scores, as `sweep.py RUN_A RUN_B ...` does."""
    opened = [run if isinstance(run, Run) else open_run(run) for run in runs]
    if len(opened) < 2:
        raise InputError(f"runs: compare needs two runs or more, not {len(opened)}")
    for name in ("at", "baseline", "strict"):
        if options.get(name) is not None and options.get(name) is not False:
            raise InputError(f"{name}: it checks one run; sweep a run alone for that (Run.sweep)")
    seen: dict[Path, Path] = {}
    for run in opened:
        if (twice := seen.setdefault(run.path.resolve(), run.path)) is not run.path:
            raise InputError(f"runs: {run.path} is given twice (as {twice} too): compare different runs")
    chosen = opened[0]._options(_COMPARED, **options)
    sweeps, systems = run_systems([run.path for run in opened], chosen, say=lambda line: None)
    return SystemsResult(tuple(sweeps), systems)
