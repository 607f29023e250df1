"""The drawing surface (`report.raster`): a PNG just large enough for what was drawn, shapes and hatches where
they were put and nowhere else, dashes held to a slow walk along the line, the same drawing the same bytes."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from quotefinder.report.raster import PAD, Canvas, _dashes, measure


def _image(canvas: Canvas) -> Image.Image:
    return Image.open(io.BytesIO(canvas.png())).convert("RGB")


def test_the_png_holds_everything_drawn_and_a_margin_whatever_the_origin() -> None:
    canvas = Canvas()
    canvas.rect(-50, -20, 30, 40, (10, 20, 30))
    canvas.text(100, 0, "words", 12, anchor="la")
    image = _image(canvas)
    width = 100 + measure("words", 12)[0] + 50
    assert image.size == (math.ceil(width + 2 * PAD), math.ceil(60 + 2 * PAD))
    assert image.getpixel((PAD + 40, PAD + 30)) == (10, 20, 30)  # inside the rectangle
    assert image.getpixel((PAD + 85, PAD + 50)) == (255, 255, 255)  # beside it
    assert image.getpixel((1, 1)) == (255, 255, 255)


def test_a_hatch_lines_its_rectangle_and_nothing_outside() -> None:
    plain, hatched = Canvas(), Canvas()
    for canvas, hatch in ((plain, ""), (hatched, "xx")):
        canvas.rect(0, 0, 200, 100, None, outline="white")  # the same extent in both
        canvas.rect(50, 25, 150, 75, (200, 0, 0), hatch=hatch)
    a, b = _image(plain), _image(hatched)
    differ = [(x, y) for x in range(a.width) for y in range(a.height) if a.getpixel((x, y)) != b.getpixel((x, y))]
    assert differ  # the hatch shows
    assert all(50 + PAD - 1 <= x <= 150 + PAD and 25 + PAD - 1 <= y <= 75 + PAD for x, y in differ)


def test_upright_text_reads_from_the_bottom_up_in_a_box_taller_than_wide() -> None:
    canvas = Canvas()
    canvas.text(0, 0, "a long label", 12, upright=True, anchor="la")
    (x0, y0, x1, y1), = [item.how["box"] for item in canvas.items]
    assert y1 - y0 == pytest.approx(measure("a long label", 12)[0]) and x1 - x0 < y1 - y0
    image = _image(canvas)
    assert image.height > image.width and image.getextrema()[0][0] < 128  # ink on the page
    # read from the bottom up: the heavy first letter of "M......" is at the bottom
    heavy = Canvas()
    heavy.text(0, 0, "M" + "." * 12, 12, upright=True)
    ink = 255 - np.asarray(_image(heavy).convert("L"), dtype=float)
    middle = ink.shape[0] // 2
    assert ink[middle:].sum() > 3 * ink[:middle].sum()


def test_the_same_drawing_is_the_same_bytes_and_the_record_says_what_was_drawn() -> None:
    def draw() -> Canvas:
        canvas = Canvas()
        canvas.line([(0, 0), (40, 30), (80, 0)], "black", 1.5, dash=(6, 3), label="series", data=[1, 2, 3])
        canvas.mark(40, 30, "star", 19, "black", "white", 1.2, label="recommended")
        canvas.text(0, 40, "title", 13, role="title")
        return canvas

    first, second = draw(), draw()
    assert first.png() == second.png()
    assert first.texts("title") == ["title"] and first.texts("tick") == []
    assert first.labelled("line")["series"].data == [1, 2, 3]
    assert first.labelled("mark")["recommended"].how["shape"] == "star"


def test_an_empty_canvas_is_an_error_not_an_empty_png() -> None:
    with pytest.raises(ValueError, match="nothing was drawn"):
        Canvas().png()


def _walked(points: list[tuple[float, float]], pattern: tuple[float, ...], step: float = 0.01) -> float:
    """The slow reference: walk the polyline in small steps, each on or off by where it falls in the pattern."""
    on_length, travelled = 0.0, 0.0
    cycle = sum(pattern)
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        length = math.hypot(x1 - x0, y1 - y0)
        n = max(1, round(length / step))
        for k in range(n):
            at = (travelled + (k + 0.5) * length / n) % cycle
            phase, on = 0.0, True
            for part in pattern:
                if at < phase + part:
                    break
                phase, on = phase + part, not on
            on_length += length / n if on else 0.0
        travelled += length
    return on_length


@given(st.lists(st.tuples(st.floats(0, 100), st.floats(0, 100)), min_size=2, max_size=5),
       st.sampled_from([(6.0, 4.0), (1.5, 2.5), (5.0, 3.0), (4.0, 2.0, 1.0, 2.0)]))
def test_dashes_cover_the_line_as_a_walk_along_it_does(points, pattern) -> None:
    pieces = list(_dashes(points, pattern))
    drawn = sum(math.hypot(x1 - x0, y1 - y0) for piece in pieces for (x0, y0), (x1, y1) in
                zip(piece, piece[1:], strict=False))
    total = sum(math.hypot(x1 - x0, y1 - y0) for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False))
    assert drawn == pytest.approx(_walked(points, pattern), abs=0.02 * (1 + total / 10))
    assert all(len(piece) >= 2 for piece in pieces)


def test_a_straight_dashed_line_is_on_and_off_from_its_start() -> None:
    """Dashes where the pattern puts them: on 6, off 4, from the first point."""
    pieces = list(_dashes([(0.0, 0.0), (100.0, 0.0)], (6.0, 4.0)))
    assert [(round(piece[0][0], 9), round(piece[-1][0], 9)) for piece in pieces] == [
        (10.0 * k, 10.0 * k + 6) for k in range(10)]
