"""A small drawing surface for the report's PNGs, over Pillow.

A `Canvas` records what is drawn (rectangles, lines, marks, text) in pixel coordinates of any origin, measuring
each piece of text as it comes, and `png` renders the record onto an image just large enough to hold all of it:
no layout pass draws the figure twice. Rendering happens at `SUPERSAMPLE` times the size and is reduced, so edges
and text are smooth. The font is DejaVu Sans, shipped with the package (`fonts/`, its licence beside it: Latin,
Greek and Cyrillic, where Pillow's own font draws only ASCII), laid out by FreeType alone (no Raqm), so the same
data gives the same bytes wherever the same Pillow runs; no metadata is written. Text is drawn on one line
(`textsafe.one_line`: a newline in a question id is a space, an invisible character shows as `<U+XXXX>`).

What was drawn stays readable (`Canvas.items`): each item's kind, its label where the plot gave one (a legend's
words, a series' name) and the data it was drawn from, so a test can read the figure as the plot made it as well
as its pixels.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..core.textsafe import one_line

SUPERSAMPLE = 3  # drawn at three times the size, then reduced: smooth lines and text at 0.02 s a figure
FONT = Path(__file__).with_name("fonts") / "DejaVuSans.ttf"
PAD = 8  # pixels of white around everything drawn
Colour = tuple[int, int, int] | str
Point = tuple[float, float]


@cache
def _font(size: float) -> Any:
    return ImageFont.truetype(FONT, round(size * SUPERSAMPLE), layout_engine=ImageFont.Layout.BASIC)


def measure(text: str, size: float) -> tuple[float, float]:
    """The width and height in pixels that `text` takes at font size `size` (pixels), as `Canvas.text` draws it."""
    left, top, right, bottom = _font(size).getbbox(one_line(text), anchor="la")
    return (right - left) / SUPERSAMPLE, size * 1.2


@dataclass(frozen=True)
class Item:
    """One thing drawn: `kind` (rect, cells, line, mark, text, band), the plot's `label` for it ("" when none), the
    `data` it stands for (a text's words, a series' points), and how to draw it (`how`)."""

    kind: str
    label: str
    data: Any
    how: dict[str, Any] = field(default_factory=dict)


# A mark's outline as points on a circle of radius 1 (y down): the shapes a legend or a point is drawn with.
def _star(points: int = 5, inner: float = 0.4) -> tuple[Point, ...]:
    return tuple((math.sin(k * math.pi / points) * (1 if k % 2 == 0 else inner),
                  -math.cos(k * math.pi / points) * (1 if k % 2 == 0 else inner)) for k in range(2 * points))


SHAPES: dict[str, tuple[Point, ...]] = {
    "diamond": ((0, -1), (0.7, 0), (0, 1), (-0.7, 0)),
    "square": ((-0.75, -0.75), (0.75, -0.75), (0.75, 0.75), (-0.75, 0.75)),
    "triangle": ((0, -1), (0.87, 0.5), (-0.87, 0.5)),
    "star": _star(),
}
HATCHES = ("//", "\\\\", "xx", "++", "..")  # what `Canvas.rect` can fill a rectangle with, over its colour


def _dashes(points: Sequence[Point], pattern: Sequence[float]) -> Iterator[list[Point]]:
    """The pieces of the polyline `points` that a dash `pattern` (on, off, on, off, ... lengths) draws."""
    on, k, left = True, 0, pattern[0]
    piece: list[Point] = [points[0]]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        length = math.hypot(x1 - x0, y1 - y0)
        done = 0.0
        while length - done > left:
            done += left
            at = (x0 + (x1 - x0) * done / length, y0 + (y1 - y0) * done / length)
            if on:
                yield [*piece, at]
            piece = [at]
            on, k = not on, (k + 1) % len(pattern)
            left = pattern[k]
        left -= length - done
        piece.append((x1, y1))
    if on and len(piece) > 1:
        yield piece


class Canvas:
    """What a figure draws, recorded in pixels; `png` renders it tightly (see the module docstring)."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.box = [math.inf, math.inf, -math.inf, -math.inf]  # the extent of everything drawn

    def _reach(self, x0: float, y0: float, x1: float, y1: float) -> None:
        box = self.box
        box[:] = [min(box[0], x0, x1), min(box[1], y0, y1), max(box[2], x0, x1), max(box[3], y0, y1)]

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: Colour | None, *, outline: Colour | None = None,
             width: float = 1.0, hatch: str = "", hatch_colour: Colour = "white", label: str = "",
             data: Any = None) -> None:
        """A rectangle between two corners; `hatch` (one of `HATCHES`) lines it in `hatch_colour`."""
        x0, x1 = sorted((x0, x1))
        y0, y1 = sorted((y0, y1))
        self._reach(x0, y0, x1, y1)
        self.items.append(Item("rect", label, data, {"box": (x0, y0, x1, y1), "fill": fill, "outline": outline,
                                                     "width": width, "hatch": hatch, "hatch_colour": hatch_colour}))

    def cells(self, x_edges: Sequence[float], y_edges: Sequence[float], colours: Any, *, label: str = "",
              data: Any = None) -> None:
        """A grid of coloured cells: `colours[r, c]` (an array of RGB bytes, rows top down) fills the cell between
        `x_edges[c]` and `x_edges[c + 1]` across and `y_edges[r]` and `y_edges[r + 1]` down (both increasing).
        One item however many cells: a million cost what the pixels cost."""
        self._reach(x_edges[0], y_edges[0], x_edges[-1], y_edges[-1])
        self.items.append(Item("cells", label, data, {"x_edges": tuple(x_edges), "y_edges": tuple(y_edges),
                                                      "colours": colours}))

    def band(self, x0: float, y0: float, x1: float, y1: float, colours: Sequence[Colour]) -> None:
        """A vertical colour scale: `colours` from the bottom (first) to the top (last), blended between."""
        self._reach(x0, y0, x1, y1)
        self.items.append(Item("band", "", None, {"box": (x0, y0, x1, y1), "colours": tuple(colours)}))

    def line(self, points: Sequence[Point], colour: Colour, width: float = 1.0, *, dash: Sequence[float] = (),
             label: str = "", data: Any = None) -> None:
        """A polyline `width` pixels wide, dashed by `dash` (on, off, ... pixel lengths) when given."""
        xs, ys = [x for x, _ in points], [y for _, y in points]
        half = width / 2
        self._reach(min(xs) - half, min(ys) - half, max(xs) + half, max(ys) + half)
        self.items.append(Item("line", label, data, {"points": tuple(points), "colour": colour, "width": width,
                                                     "dash": tuple(dash)}))

    def mark(self, x: float, y: float, shape: str, size: float, face: Colour | None, edge: Colour | None = None,
             edge_width: float = 0.0, *, label: str = "", data: Any = None) -> None:
        """A mark `size` pixels across centred on (x, y): a "circle" or one of `SHAPES`, filled with `face` (None:
        hollow) and outlined `edge_width` pixels wide in `edge`."""
        reach = size / 2 + edge_width / 2
        self._reach(x - reach, y - reach, x + reach, y + reach)
        self.items.append(Item("mark", label, data, {"at": (x, y), "shape": shape, "size": size, "face": face,
                                                     "edge": edge, "edge_width": edge_width}))

    def text(self, x: float, y: float, words: str, size: float, *, colour: Colour = "black", anchor: str = "la",
             upright: bool = False, role: str = "") -> None:
        """`words` at (x, y) by Pillow's `anchor` (l/m/r then a/m/s/d: "mm" centres them); `upright` turns them a
        quarter to read from the bottom up (the anchor then applies to the turned text). `role` says what they
        are (title, tick, cell, legend, ...), which a test can ask for (`texts`)."""
        words = one_line(words)
        width, height = measure(words, size)
        w, h = (height, width) if upright else (width, height)
        left = x - {"l": 0, "m": w / 2, "r": w}[anchor[0]]
        top = y - {"a": 0, "t": 0, "m": h / 2, "s": h * 0.8, "d": h, "b": h}[anchor[1]]
        self._reach(left, top, left + w, top + h)
        self.items.append(Item("text", role, words, {"words": words, "box": (left, top, left + w, top + h),
                                                     "size": size, "colour": colour, "upright": upright}))

    def texts(self, role: str) -> list[str]:
        """The words drawn with `role`, in the order drawn."""
        return [item.data for item in self.items if item.kind == "text" and item.label == role]

    def labelled(self, kind: str) -> dict[str, Item]:
        """The items of `kind` that carry a label, by label (the last of each)."""
        return {item.label: item for item in self.items if item.kind == kind and item.label}

    def png(self) -> bytes:
        """The drawing as PNG bytes: everything recorded, with `PAD` pixels of white around it."""
        if not self.items:
            raise ValueError("nothing was drawn")
        left, top = math.floor(self.box[0]) - PAD, math.floor(self.box[1]) - PAD  # whole pixels: sharp lines
        width, height = math.ceil(self.box[2] + PAD - left), math.ceil(self.box[3] + PAD - top)
        image = Image.new("RGB", (width * SUPERSAMPLE, height * SUPERSAMPLE), "white")
        _Renderer(image, left, top).paint(self.items)
        buffer = io.BytesIO()
        image.reduce(SUPERSAMPLE).save(buffer, format="PNG", compress_level=6)
        return buffer.getvalue()


class _Renderer:
    """Draws recorded items onto a supersampled image whose top left is (left, top) in the canvas' pixels."""

    def __init__(self, image: Image.Image, left: float, top: float) -> None:
        self.image, self.left, self.top = image, left, top
        self.draw = ImageDraw.Draw(image)

    def at(self, x: float, y: float) -> Point:
        return (x - self.left) * SUPERSAMPLE, (y - self.top) * SUPERSAMPLE

    def paint(self, items: Sequence[Item]) -> None:
        for item in items:
            getattr(self, f"_{item.kind}")(**item.how)

    def _rect(self, box: tuple[float, ...], fill: Colour | None, outline: Colour | None, width: float, hatch: str,
              hatch_colour: Colour) -> None:
        (x0, y0), (x1, y1) = self.at(box[0], box[1]), self.at(box[2], box[3])
        corners = [round(x0), round(y0), round(x1) - 1, round(y1) - 1]
        if corners[2] < corners[0] or corners[3] < corners[1]:
            return
        self.draw.rectangle(corners, fill=fill)
        if hatch:
            self._hatch(corners, hatch, hatch_colour)
        if outline is not None:
            self.draw.rectangle(corners, outline=outline, width=max(1, round(width * SUPERSAMPLE)))

    def _hatch(self, corners: list[int], hatch: str, colour: Colour) -> None:
        x0, y0, x1, y1 = corners
        w, h = x1 - x0 + 1, y1 - y0 + 1
        mask = Image.new("L", (w, h), 0)
        pen = ImageDraw.Draw(mask)
        step, line = 8 * SUPERSAMPLE, SUPERSAMPLE
        if hatch == "..":
            for y in range(step // 2, h, step):
                for x in range(step // 2 + (step // 2 if (y // step) % 2 else 0), w, step):
                    pen.ellipse([x - line, y - line, x + line, y + line], fill=255)
        if hatch in ("//", "xx"):
            for c in range(-h, w, step):
                pen.line([(c, h), (c + h, 0)], fill=255, width=line)
        if hatch in ("\\\\", "xx"):
            for c in range(-h, w, step):
                pen.line([(c, 0), (c + h, h)], fill=255, width=line)
        if hatch == "++":
            for x in range(step // 2, w, step):
                pen.line([(x, 0), (x, h)], fill=255, width=line)
            for y in range(step // 2, h, step):
                pen.line([(0, y), (w, y)], fill=255, width=line)
        self.image.paste(colour, (x0, y0), mask)

    def _cells(self, x_edges: tuple[float, ...], y_edges: tuple[float, ...], colours: Any) -> None:
        # each pixel of the figure (not of the supersampled image: a cell's edge is sharp) takes the colour of the
        # cell its centre falls in
        left, top = round(x_edges[0] - self.left), round(y_edges[0] - self.top)
        across = np.arange(left, round(x_edges[-1] - self.left)) + 0.5 + self.left
        down = np.arange(top, round(y_edges[-1] - self.top)) + 0.5 + self.top
        column = np.clip(np.searchsorted(x_edges, across, side="right") - 1, 0, len(x_edges) - 2)
        row = np.clip(np.searchsorted(y_edges, down, side="right") - 1, 0, len(y_edges) - 2)
        pixels = np.asarray(colours, dtype=np.uint8).take(row, axis=0).take(column, axis=1)
        image = Image.fromarray(np.ascontiguousarray(pixels), "RGB")
        size = (image.width * SUPERSAMPLE, image.height * SUPERSAMPLE)
        self.image.paste(image.resize(size, Image.Resampling.NEAREST), (left * SUPERSAMPLE, top * SUPERSAMPLE))

    def _band(self, box: tuple[float, ...], colours: tuple[Colour, ...]) -> None:
        (x0, y0), (x1, y1) = self.at(box[0], box[1]), self.at(box[2], box[3])
        ramp = Image.new("RGB", (1, len(colours)))
        ramp.putdata(list(reversed(colours)))  # type: ignore[arg-type]  # (RGB tuples)
        size = (max(1, round(x1 - x0)), max(1, round(y1 - y0)))
        self.image.paste(ramp.resize(size, Image.Resampling.BILINEAR, reducing_gap=None), (round(x0), round(y0)))

    def _line(self, points: tuple[Point, ...], colour: Colour, width: float, dash: tuple[float, ...]) -> None:
        scaled = [self.at(x, y) for x, y in points]
        pen = max(1, round(width * SUPERSAMPLE))
        pieces = _dashes(scaled, [d * SUPERSAMPLE for d in dash]) if dash else [scaled]
        for piece in pieces:
            self.draw.line(piece, fill=colour, width=pen, joint="curve" if len(piece) > 2 else None)

    def _mark(self, at: Point, shape: str, size: float, face: Colour | None, edge: Colour | None,
              edge_width: float) -> None:
        x, y = self.at(*at)
        r = size * SUPERSAMPLE / 2
        pen = round(edge_width * SUPERSAMPLE)
        if shape == "circle":
            box = [x - r, y - r, x + r, y + r]
            self.draw.ellipse(box, fill=face, outline=edge if pen else None, width=max(pen, 1))
            return
        outline = [(x + dx * r, y + dy * r) for dx, dy in SHAPES[shape]]
        if face is not None:
            self.draw.polygon(outline, fill=face)
        if edge is not None and pen:
            self.draw.line([*outline, outline[0], outline[1]], fill=edge, width=pen, joint="curve")

    def _text(self, words: str, box: tuple[float, ...], size: float, colour: Colour, upright: bool) -> None:
        x0, y0 = self.at(box[0], box[1])
        font = _font(size)
        if not upright:
            self.draw.text((x0, y0), words, font=font, fill=colour, anchor="la")
            return
        width, height = (round(v * SUPERSAMPLE) + 2 for v in measure(words, size))
        mask = Image.new("L", (width, height), 0)
        ImageDraw.Draw(mask).text((0, 0), words, font=font, fill=255, anchor="la")
        self.image.paste(colour, (round(x0), round(y0)), mask.rotate(90, expand=True))
