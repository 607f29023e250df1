"""The page of a comparison of systems (`sweep.py RUN_A RUN_B ... --out DIR`, `DIR/index.html`): which to ship
first, the systems side by side (one grid of scores each, on one colour scale, each system's recommended cell
marked), then every question's outcome in every system.

Static HTML: no script at all (the Content-Security-Policy allows none), every page text escaped, so it reads
the same in any browser and from a CI artefact.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..core.textsafe import markdown_code, markdown_text, visible
from ..sweep.analysis import Sweep
from ..sweep.systems import Systems
from .figures import COLOURMAPS, stops
from .html import document_head
from .systems import settings_word, ship_lines, which_to_ship_lines
from .wording import decision_lines, options_words, pipeline_words

if TYPE_CHECKING:
    import pandas as pd

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; }
.banner { background: #fff3cd; border: 1px solid #c9a227; padding: 0.5rem 0.8rem; }
.ship { font-size: 1.15rem; font-weight: 600; }
.systems { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
table.grid { border-collapse: collapse; font-size: 0.65rem; }
table.grid td { width: 1.1rem; height: 1.1rem; padding: 0; text-align: center; color: #fff; }
table.grid td.chosen { outline: 3px solid #000; outline-offset: -3px; color: #000; background-clip: padding-box; }
table.grid th { font-weight: normal; padding: 0 0.2rem; }
table.data { border-collapse: collapse; margin: 0.5rem 0 1rem; }
table.data { max-width: 100%; }
table.data th, table.data td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: left;
                               overflow-wrap: anywhere; }
.scale { display: inline-block; width: 12rem; height: 0.8rem; vertical-align: middle;
         background: linear-gradient(to right, STOPS); }
"""


def _style() -> str:
    """The page's styles, its colour scale's gradient sampled from the colormap of "more is better"."""
    return STYLE.replace("STOPS", ", ".join(f"rgb({r}, {g}, {b})" for r, g, b in stops("more")))


def hex_colours(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """The colour (`#rrggbb`) of each of `values` on the scale [low, high] (the middle when the scale is one value)
    in the colormap of "more is better" (`figures.COLOURMAPS`: viridis), as the sweep's own figures colour it: an
    array of `values`' shape."""
    from matplotlib import colormaps  # here: a sweep that writes tables alone never imports matplotlib

    values = np.asarray(values, dtype=float)
    x = (values - low) / (high - low) if high > low else np.full(values.shape, 0.5)
    rgb = np.round(colormaps[COLOURMAPS["more"]](np.clip(x, 0.0, 1.0))[..., :3] * 255).astype(int)
    return np.array([f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb.reshape(-1, 3)], dtype=object).reshape(values.shape)


def _text(value: object) -> str:
    return html.escape(visible(str(value)))


def score_grid(result: Sweep, low: float, high: float) -> str:
    """One system's grid of scores as a table: rows the first axis, its lowest value at the bottom as on the
    single-run page's heatmaps, columns the second, each cell coloured on the shared scale [low, high], its numbers
    in its title; the recommended cell outlined and starred."""
    scores = np.round(result.scores, 9)
    backgrounds = hex_colours(scores, low, high)
    chosen = result.decision.marked
    h_text = [result.h_axis.text(i) for i in range(len(result.h_axis.decimals))]
    a_text = [result.a_axis.text(j) for j in range(len(result.a_axis.decimals))]
    step = max(1, len(a_text) // 10)
    head = "".join(f"<th scope=\"col\">{_text(t) if j % step == 0 else ''}</th>" for j, t in enumerate(a_text))
    rows = []
    for i, h in reversed(list(enumerate(h_text))):
        cells = []
        for j, a in enumerate(a_text):
            mark = (i, j) == chosen
            title = f"{h}, {a}: score {scores[i, j]:g}" + (" (recommended)" if mark else "")
            chosen_attributes = ' class="chosen" data-chosen="1"' if mark else ""
            cells.append(f"<td style=\"background:{backgrounds[i, j]}\" title=\"{_text(title)}\""
                         f"{chosen_attributes}>{'★' if mark else ''}</td>")
        rows.append(f"<tr data-row=\"{i}\"><th scope=\"row\">{_text(h) if i % step == 0 else ''}</th>"
                    f"{''.join(cells)}</tr>")
    return (f"<table class=\"grid\" aria-label=\"scores of {_text(result.replayed.run_dir)}\"><thead><tr><th></th>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def frame_table(frame: pd.DataFrame, label: str) -> str:
    """A DataFrame as a plain table, every cell escaped."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    head = "".join(f"<th scope=\"col\">{_text(c)}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td>{_text('' if pd.isna(v) else v)}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return (f"<table class=\"data\" aria-label=\"{_text(label)}\"><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def fields_table(frame: pd.DataFrame, label: str) -> str:
    """A DataFrame turned on its side: a column per row of `frame` (headed by its first column), a row per other
    column, so that a table of a few systems with many fields fits a window's width. Every cell escaped."""
    import pandas as pd  # here: a sweep that writes tables alone never imports pandas

    first, *fields = frame.columns
    head = "".join(f"<th scope=\"col\">{_text(v)}</th>" for v in frame[first])
    body = "".join(f"<tr><th scope=\"row\">{_text(field)}</th>"
                   + "".join(f"<td>{_text('' if pd.isna(v) else v)}</td>" for v in frame[field]) + "</tr>"
                   for field in fields)
    return (f"<table class=\"data\" aria-label=\"{_text(label)}\"><thead><tr><th scope=\"col\">{_text(first)}</th>"
            f"{head}</tr></thead><tbody>{body}</tbody></table>")


def page(sweeps: Sequence[Sweep], names: Sequence[str], pipelines: Sequence[str], ship: Sequence[str],
         systems: pd.DataFrame, outcomes: pd.DataFrame) -> str:
    """The whole page: `ship` the plain lines that say which to ship (the first names the system), `systems` the
    table of systems.csv, `outcomes` every question's outcome in every system."""
    scores = [np.round(s.scores, 9) for s in sweeps]
    low, high = float(min(s.min() for s in scores)), float(max(s.max() for s in scores))
    synthetic = any(s.replayed.record.synthetic for s in sweeps)
    banner = ("<p class=\"banner\"><strong>Synthetic evidence.</strong> Recorded against the stand-in API from "
              "invented probabilities: it shows what the harness reports, not how the systems perform.</p>"
              if synthetic else "")
    lines = [f"<p class=\"ship\">{_text(ship[0])}</p>" if ship else "",
             "".join(f"<li>{_text(line)}</li>" for line in ship[1:])]
    grids = []
    for result, name, pipeline in zip(sweeps, names, pipelines, strict=True):
        first, second = (spec.title for spec in result.system.axes)
        grids.append(f"<section class=\"system\" data-run=\"{_text(name)}\"><h3>{_text(name)} ({_text(pipeline)})"
                     f"</h3><p>rows {_text(first)}, columns {_text(second)}; ★ its recommended cell "
                     f"{_text(result.h_axis.text(result.decision.marked[0]))}, "
                     f"{_text(result.a_axis.text(result.decision.marked[1]))}</p>{score_grid(result, low, high)}"
                     "</section>")
    title = " vs ".join(names) + (" (SYNTHETIC evidence)" if synthetic else "")
    policy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
    return f"""{document_head(policy, f"Which system to ship: {visible(title)}", _style())}
<body>
<h1>Which system to ship</h1>
{banner}
<section id="decision" aria-label="Which to ship">{lines[0]}<ul>{lines[1]}</ul></section>
<h2>The systems</h2>
<p>One column per system, one row per column of systems.csv.</p>
{fields_table(systems, "systems")}
<h2>Side by side</h2>
<p>Score = correct + no-answer - C x wrong at every cell of each system's own grid, on one colour scale for all
(<span class="scale"></span> from {low:g} to {high:g}, more is better).</p>
<div class="systems">{''.join(grids)}</div>
<h2>Every question in every system</h2>
<p>Each question's outcome at each system's recommended cell (first repeat).</p>
{frame_table(outcomes, "outcomes")}
</body>
</html>
"""


def ship_words(systems: Systems) -> list[str]:
    """The page's and the terminal's lines: `systems.ship_lines` with names as plain text."""
    return ship_lines(systems, code=lambda text: visible(text))


def markdown(sweeps: Sequence[Sweep], systems: Systems, page: bool) -> str:
    """`summary.md` of a comparison: "Which to ship" first, then each system's own decision in its words, and the
    files beside it."""
    synthetic = any(s.replayed.record.synthetic for s in sweeps)
    names = " vs ".join(markdown_code(s.name) for s in systems.systems)
    lines = [f"# Which system to ship: {names}", ""]
    if synthetic:
        lines += ["> **Synthetic evidence.** These runs were recorded against the stand-in API from invented pages: "
                  "they show what the harness reports, not how the real systems perform.", ""]
    ship = which_to_ship_lines(systems)
    end = len(ship) - (ship[-1:] == [""])  # the options given close the list
    lines += [*ship[:end], f"- Options given (to every run): {options_words(sweeps[0].settings.options)}", ""]
    lines += [f"## Each system at its own recommended {settings_word(systems)}", ""]
    for result, system in zip(sweeps, systems.systems, strict=True):
        pipeline = pipeline_words(result) or f"system {result.replayed.record.config.system}, the recipe's pipeline"
        lines += [f"### {markdown_code(system.name)}", "", f"- {markdown_text(pipeline[0].upper() + pipeline[1:])}",
                  *(f"- {line}" for line in decision_lines(result)), ""]
    also = ", `index.html` (the systems side by side)" if page else ""
    lines += ["## Files", "", "- `systems.csv`: one row per run: its recommended cell, counts there, in-sample and "
              "cross-validated scores, and the test against the best", "- `questions.csv`: every question's outcome "
              f"in every system; `decision.json`: the system and cell to ship, for CI{also}; `report.json`: every "
              "file of this report with its SHA-256", "- each system's own grid, plots and page: `sweep.py RUN` on "
              "it alone", ""]
    return "\n".join(lines)

