"""Heatmap numbers: written in their cells only where a person can read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from quotefinder.report import plots


def _grid(size: int, values: np.ndarray) -> pd.DataFrame:
    axis = np.round(np.linspace(0, 1, size), 4)
    h, a = np.meshgrid(axis, axis, indexing="ij")
    return pd.DataFrame({"has_answer_cutoff": h.ravel(), "answer_cutoff": a.ravel(), "wrong": values.ravel()})


@pytest.mark.parametrize(("size", "values", "written"), [
    (6, np.arange(36) * 300, True),  # four-digit counts on a small grid: they fit
    (21, np.arange(441) * 25, False),  # the default grid: 441 cells are too small for any number
    (12, np.full(144, 1234.567), False),  # means too wide for their cells
])
def test_numbers_appear_in_cells_only_when_they_fit(tmp_path: Path, monkeypatch, size, values, written) -> None:
    shown: list[str] = []
    save = plots._save

    def keep_texts(fig, path):
        shown.extend(text.get_text() for text in fig.axes[0].texts)
        save(fig, path)

    monkeypatch.setattr(plots, "_save", keep_texts)
    plots.heatmap(_grid(size, values), "wrong", tmp_path / "h.png", {"default": (0.2, 0.6)}, "t", "wrong")
    assert (tmp_path / "h.png").stat().st_size > 1000
    if written:
        assert len(shown) == size * size and "10500" in shown
    else:
        assert shown == []
