"use strict";
// The sweep explorer: heatmaps of the grid (each with its colour bar; the decision's cells marked by shape),
// the risk-coverage view of the recommended row, the counts of the cell under the pointer, and the questions
// of the cell clicked, with what changes one grid step away. Everything it shows is computed from the sweep's
// own data embedded in the page; page text reaches the DOM only as text (textContent), and a link only ever
// opens an http(s) URL.
(function () {
  const data = JSON.parse(document.getElementById("sweep-data").textContent);
  const S = data.strings;
  const H = data.h;
  const A = data.a;
  const [H_TITLE, A_TITLE] = data.titles;  // the axes' names: HAS_ANSWER_CUTOFF, ANSWER_CUTOFF for the quote finder
  const OUT = data.outcomes;
  const LABEL = data.labels;
  const REPEATS = data.repeats;
  const LIST_PAGE = 200;

  function el(tag, attributes, text) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      node.setAttribute(name, value);
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  // ---- each question's curve, as the sweep reads it -------------------------------------------------
  // A curve splits HAS_ANSWER_CUTOFF into segments at its edges and each segment's ANSWER_CUTOFF into pieces at
  // its bounds; a cutoff falls in the segment (or piece) numbered by how many edges (bounds) are below it, so a
  // value equal to an edge stays below it. The same comparisons, on the same double-precision numbers, as the
  // sweep's (`pipelines.values_below`); which piece does what is the system's, computed before the page.
  function below(values, x) {
    let k = 0;
    while (k < values.length && values[k] < x) {
      k += 1;
    }
    return k;
  }

  // a piece: [text, source, score, score name, outcome code, quoted (1) or not (0)]; text -1: nothing shown
  function decisionAt(rep, i, j) {
    const k = below(rep.e, H[i]);
    const piece = rep.p[k][below(rep.b[k], A[j])];
    return { quoted: piece[5] === 1, code: piece[4], shown: piece[0] >= 0 ? piece : null };
  }

  function questionAt(q, i, j) {
    const decisions = q.reps.map((rep) => decisionAt(rep, i, j));
    return { question: q, codes: decisions.map((d) => d.code), first: decisions[0] };
  }

  function cellRows(i, j) {
    return data.questions.map((q) => questionAt(q, i, j));
  }

  function cellCounts(i, j) {
    const counts = OUT.map(() => 0);
    for (const row of cellRows(i, j)) {
      for (const code of row.codes) {
        counts[code] += 1 / REPEATS;
      }
    }
    return counts;
  }

  // ---- heatmaps -------------------------------------------------------------------------------------
  // One scale where more is better (viridis), another where more is worse (OrRd), cividis for anything else:
  // colour-blind safe, each in order in greyscale: matplotlib's colormaps, which the figures draw with, sampled at
  // evenly spaced stops (figures.stops) and blended between here.
  const STOPS = data.stops;
  const SCALE_WORDS = data.scaleWords;

  function colour(palette, value, low, high) {
    const x = high > low ? (value - low) / (high - low) : 0.5;
    const position = Math.min(Math.max(x, 0), 1) * (palette.length - 1);
    const k = Math.min(Math.floor(position), palette.length - 2);
    const f = position - k;
    return palette[k].map((c, n) => Math.round(c + f * (palette[k + 1][n] - c)));
  }

  const cell = Math.max(2, Math.floor(252 / Math.max(H.length, A.length)));
  const margin = { left: 46, bottom: 34, top: 6, right: 6 };
  let selected = data.recommended;
  const panels = [];

  // The certified region's outline, as one path (drawn on every panel).
  const outline = new Path2D();
  if (data.certified) {
    const inside = (i, j) => i >= 0 && j >= 0 && i < H.length && j < A.length && data.certified[i][j] === 1;
    for (let i = 0; i < H.length; i += 1) {
      for (let j = 0; j < A.length; j += 1) {
        if (!inside(i, j)) {
          continue;
        }
        const x = margin.left + j * cell;
        const y = margin.top + (H.length - 1 - i) * cell;
        if (!inside(i + 1, j)) { outline.moveTo(x, y); outline.lineTo(x + cell, y); }
        if (!inside(i - 1, j)) { outline.moveTo(x, y + cell); outline.lineTo(x + cell, y + cell); }
        if (!inside(i, j - 1)) { outline.moveTo(x, y); outline.lineTo(x, y + cell); }
        if (!inside(i, j + 1)) { outline.moveTo(x + cell, y); outline.lineTo(x + cell, y + cell); }
      }
    }
  }

  // ---- the marks: told apart by shape, each black on white so that it shows at both ends of every scale --
  // (the PNGs draw the same shapes: plots.MARKS). `size` is a cell's side in pixels.
  function strokeTwice(context, path, dash) {
    context.setLineDash([]);
    context.strokeStyle = "#ffffff";
    context.lineWidth = 4;
    context.stroke(path);
    context.setLineDash(dash || []);
    context.strokeStyle = "#000000";
    context.lineWidth = 1.75;
    context.stroke(path);
    context.setLineDash([]);
  }

  function starPath(x, y, radius) {
    const path = new Path2D();
    for (let n = 0; n < 10; n += 1) {
      const r = (n % 2 === 0 ? 1 : 0.45) * radius;
      const angle = -Math.PI / 2 + (n * Math.PI) / 5;
      path.lineTo(x + r * Math.cos(angle), y + r * Math.sin(angle));
    }
    path.closePath();
    return path;
  }

  function drawMark(context, mark, x, y, size) {
    const clamp = (value, low, high) => Math.min(Math.max(value, low), high);
    if (mark === "default") {  // a ring
      const ring = new Path2D();
      ring.arc(x, y, clamp(size * 1.05, 8, 18), 0, 2 * Math.PI);
      strokeTwice(context, ring);
    } else if (mark === "bestCertified") {  // a white diamond edged in black
      const r = clamp(size * 0.95, 7, 14);
      const diamond = new Path2D();
      diamond.moveTo(x, y - r);
      diamond.lineTo(x + r, y);
      diamond.lineTo(x, y + r);
      diamond.lineTo(x - r, y);
      diamond.closePath();
      context.fillStyle = "#ffffff";
      context.fill(diamond);
      context.strokeStyle = "#000000";
      context.lineWidth = 1.5;
      context.stroke(diamond);
    } else if (mark === "recommended") {  // a black star edged in white
      const star = starPath(x, y, clamp(size * 0.6, 5, 10));
      context.fillStyle = "#000000";
      context.fill(star);
      context.strokeStyle = "#ffffff";
      context.lineWidth = 1.25;
      context.stroke(star);
    } else if (mark === "selected") {  // a square frame: white inside, black outside
      context.strokeStyle = "#ffffff";
      context.lineWidth = 2;
      context.strokeRect(x - size / 2 - 1, y - size / 2 - 1, size + 2, size + 2);
      context.strokeStyle = "#000000";
      context.lineWidth = 1;
      context.strokeRect(x - size / 2 - 2.5, y - size / 2 - 2.5, size + 5, size + 5);
    } else if (mark === "region") {  // the legend's sample of the certified region's line
      const line = new Path2D();
      line.moveTo(x - 9, y + 5);
      line.lineTo(x - 9, y - 7);
      line.lineTo(x + 9, y - 7);
      strokeTwice(context, line, [4, 3]);
    }
  }

  function drawLegend() {
    for (const canvas of document.querySelectorAll("canvas.mark")) {
      const context = canvas.getContext("2d");
      context.fillStyle = "#8c8c8c";  // mid grey: both the white and the black of a mark show on it
      context.fillRect(0, 0, canvas.width, canvas.height);
      drawMark(context, canvas.dataset.mark, canvas.width / 2, canvas.height / 2, 12);
    }
  }

  // A panel's colours, one pixel per cell, drawn once and scaled up on every redraw; its colour bar.
  function paintCells(panel) {
    let low = Infinity;
    let high = -Infinity;
    for (const row of panel.values) {
      for (const value of row) {
        low = Math.min(low, value);
        high = Math.max(high, value);
      }
    }
    const palette = STOPS[panel.better];
    const image = new ImageData(A.length, H.length);
    for (let i = 0; i < H.length; i += 1) {
      for (let j = 0; j < A.length; j += 1) {
        const at = 4 * ((H.length - 1 - i) * A.length + j);
        image.data.set([...colour(palette, panel.values[i][j], low, high), 255], at);
      }
    }
    panel.cells = document.createElement("canvas");
    panel.cells.width = A.length;
    panel.cells.height = H.length;
    panel.cells.getContext("2d").putImageData(image, 0, 0);
    const stops = palette.map((c, k) => `rgb(${c.join(", ")}) ${Math.round((100 * k) / (palette.length - 1))}%`);
    const bar = el("span", { class: "bar", "aria-hidden": "true" });
    bar.style.backgroundImage = `linear-gradient(to right, ${stops.join(", ")})`;
    const words = SCALE_WORDS[panel.better];
    panel.scale.replaceChildren(el("span", { class: "low" }, formatNumber(low)), bar,
      el("span", { class: "high" }, formatNumber(high)), ...(words ? [el("span", { class: "words" }, words)] : []));
    Object.assign(panel.scale.dataset, { low: String(low), high: String(high), scale: panel.better });
  }

  function drawPanel(panel) {
    const canvas = panel.canvas;
    const context = canvas.getContext("2d");
    context.clearRect(0, 0, canvas.width, canvas.height);
    context.imageSmoothingEnabled = false;
    context.drawImage(panel.cells, margin.left, margin.top, A.length * cell, H.length * cell);
    const centre = (i, j) => [margin.left + (j + 0.5) * cell, margin.top + (H.length - 1 - i + 0.5) * cell];
    panel.drawn = [];
    if (data.certified) {
      strokeTwice(context, outline, [4, 3]);
    }
    for (const [mark, at] of [["default", data.default], ["bestCertified", data.bestCertified],
      ["recommended", data.recommended], ["selected", selected]]) {
      if (at) {
        const [x, y] = centre(at[0], at[1]);
        drawMark(context, mark, x, y, cell);
        panel.drawn.push({ mark, i: at[0], j: at[1], x, y });
      }
    }
    context.fillStyle = "#333333";
    context.font = "10px sans-serif";
    context.textAlign = "right";
    context.fillText(data.hText[0], margin.left - 3, margin.top + H.length * cell);
    context.fillText(data.hText[H.length - 1], margin.left - 3, margin.top + 9);
    context.textAlign = "left";
    context.fillText(data.aText[0], margin.left, margin.top + H.length * cell + 12);
    context.textAlign = "right";
    context.fillText(data.aText[A.length - 1], margin.left + A.length * cell, margin.top + H.length * cell + 12);
    if (H.length > 2 && A.length > 2) {  // the middle value of each axis, when there is one
      const [hm, am] = [Math.floor((H.length - 1) / 2), Math.floor((A.length - 1) / 2)];
      context.fillText(data.hText[hm], margin.left - 3, margin.top + (H.length - 1 - hm + 0.5) * cell + 3);
      context.textAlign = "center";
      context.fillText(data.aText[am], margin.left + (am + 0.5) * cell, margin.top + H.length * cell + 12);
    }
    context.textAlign = "center";
    context.fillText(A_TITLE, margin.left + (A.length * cell) / 2, margin.top + H.length * cell + 27);
    context.save();
    context.translate(14, margin.top + (H.length * cell) / 2);
    context.rotate(-Math.PI / 2);
    context.fillText(H_TITLE, 0, 0);
    context.restore();
  }

  function cellAt(canvas, event) {
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left - margin.left;
    const y = event.clientY - box.top - margin.top;
    const j = Math.floor(x / cell);
    const i = H.length - 1 - Math.floor(y / cell);
    if (j < 0 || i < 0 || j >= A.length || i >= H.length) {
      return null;
    }
    return [i, j];
  }

  function formatNumber(value) {
    return Number.isInteger(value) ? String(value) : String(Math.round(value * 10000) / 10000);
  }

  // A cell's means over repeats, as grid.csv writes them, for the outcomes shown: the four always,
  // unjudged and unlabelled when there are any.
  function shownMeans(i, j) {
    return OUT.map((name, k) => [k, data.grids[name][i][j]]).filter(([k, n]) => n !== 0 || k < 4);
  }

  const tooltip = document.getElementById("tooltip");

  function showTooltip(event, i, j) {
    tooltip.replaceChildren();
    tooltip.appendChild(el("strong", {}, `${H_TITLE} ${data.hText[i]}, ${A_TITLE} ${data.aText[j]}`));
    for (const [k, value] of shownMeans(i, j)) {
      tooltip.appendChild(el("div", {}, `${LABEL[k]}: ${formatNumber(value)}`));
    }
    tooltip.appendChild(el("div", {}, `score: ${formatNumber(data.grids.score[i][j])}`));
    if (data.certified) {
      tooltip.appendChild(el("div", {}, data.certified[i][j] ? "certified" : "not certified"));
    }
    tooltip.hidden = false;
    tooltip.style.left = `${event.pageX + 14}px`;
    tooltip.style.top = `${event.pageY + 14}px`;
  }

  function buildPanels() {
    const holder = document.getElementById("heatmaps");
    const names = [...OUT.filter((name, k) => k < 4 || data.present[k]), "score"];
    for (const name of names) {
      const figure = el("figure", { class: "panel" });
      const canvas = el("canvas", {
        width: String(margin.left + A.length * cell + margin.right),
        height: String(margin.top + H.length * cell + margin.bottom),
        "data-grid": name,
        tabindex: "0",
        "aria-label": `${name === "score" ? "score" : LABEL[OUT.indexOf(name)]} over the grid`,
      });
      const caption = el("figcaption", {}, name === "score" ? "score" : LABEL[OUT.indexOf(name)]);
      const scale = el("span", { class: "scale" });
      caption.appendChild(scale);
      figure.appendChild(caption);
      figure.appendChild(canvas);
      holder.appendChild(figure);
      const panel = { canvas, name, values: data.grids[name], scale, better: data.better[name] || "neither" };
      paintCells(panel);
      panels.push(panel);
      canvas.addEventListener("mousemove", (event) => {
        const at = cellAt(canvas, event);
        if (at) {
          showTooltip(event, at[0], at[1]);
        } else {
          tooltip.hidden = true;
        }
      });
      canvas.addEventListener("mouseleave", () => { tooltip.hidden = true; });
      canvas.addEventListener("click", (event) => {
        const at = cellAt(canvas, event);
        if (at) {
          select(at[0], at[1]);
        }
      });
      canvas.addEventListener("keydown", (event) => {  // arrow keys move the selection while a map has focus
        const moves = { ArrowRight: [0, 1], ArrowLeft: [0, -1], ArrowUp: [1, 0], ArrowDown: [-1, 0] };
        const move = moves[event.key];
        if (move) {
          event.preventDefault();
          select(Math.min(Math.max(selected[0] + move[0], 0), H.length - 1),
            Math.min(Math.max(selected[1] + move[1], 0), A.length - 1));
        }
      });
    }
  }

  // ---- risk and coverage: the wrong-answer rate against the share of questions answered -----------------
  // One point per ANSWER_CUTOFF in the recommended row (data.risk, the numbers risk-coverage.png draws), each
  // carrying its numbers as data attributes; a click selects its cell.
  const SVG = "http://www.w3.org/2000/svg";

  function svg(tag, attributes, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      node.setAttribute(name, String(value));
    }
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  function percent(value, up) {  // a bound rounded up, anything else to the nearest
    const scaled = value * 1000;
    return `${(up ? Math.ceil(scaled - 1e-9) : Math.round(scaled)) / 10}%`;
  }

  function buildRisk() {
    const risk = data.risk;
    const size = { width: 720, height: 300, left: 48, right: 300, top: 12, bottom: 42 };
    const w = size.width - size.left - size.right;
    const h = size.height - size.top - size.bottom;
    const top = Math.min(1, Math.ceil((Math.max(...risk.bound, risk.alpha || 0) * 1.08 + 0.02) * 10) / 10);
    const x = (coverage) => size.left + coverage * w;
    const y = (rate) => size.top + (1 - rate / top) * h;
    const root = svg("svg", { width: size.width, height: size.height, viewBox: `0 0 ${size.width} ${size.height}`,
      role: "img", "aria-label": "wrong-answer rate against coverage", "data-row": risk.row });
    const axes = svg("g", { class: "axes" });
    axes.appendChild(svg("rect", { x: size.left, y: size.top, width: w, height: h, fill: "none", stroke: "#999" }));
    for (let k = 0; k <= 4; k += 1) {
      axes.appendChild(svg("line", { x1: x(k / 4), x2: x(k / 4), y1: size.top, y2: size.top + h, class: "gridline" }));
      axes.appendChild(svg("text", { x: x(k / 4), y: size.top + h + 14, "text-anchor": "middle" }, `${k * 25}%`));
    }
    const step = top > 0.5 ? 0.2 : 0.1;
    for (let k = 0; k * step <= top + 1e-9; k += 1) {
      const rate = Math.round(k * step * 10) / 10;
      axes.appendChild(svg("line", { x1: size.left, x2: size.left + w, y1: y(rate), y2: y(rate), class: "gridline" }));
      axes.appendChild(svg("text", { x: size.left - 4, y: y(rate) + 3, "text-anchor": "end" }, `${Math.round(rate * 100)}%`));
    }
    axes.appendChild(svg("text", { x: size.left + w / 2, y: size.height - 6, "text-anchor": "middle" },
      "coverage: share of questions answered (quoted)"));
    axes.appendChild(svg("text", { x: 12, y: size.top + h / 2, "text-anchor": "middle",
      transform: `rotate(-90 12 ${size.top + h / 2})` }, "wrong-answer rate"));
    root.appendChild(axes);
    if (risk.alpha !== null) {
      root.appendChild(svg("line", { x1: size.left, x2: size.left + w, y1: y(risk.alpha), y2: y(risk.alpha),
        class: "alpha", "data-alpha": risk.alpha }));
    }
    const shapes = {
      observed: (px, py) => svg("circle", { cx: px, cy: py, r: 3.5 }),
      bound: (px, py) => svg("path", { d: `M${px} ${py - 4.5}L${px + 4.5} ${py + 3.5}L${px - 4.5} ${py + 3.5}Z` }),
    };
    for (const series of ["observed", "bound"]) {
      const points = A.map((a, j) => `${x(risk.coverage[j])},${y(risk[series][j])}`).join(" ");
      root.appendChild(svg("polyline", { points, class: `line ${series}` }));
      const group = svg("g", { class: `points ${series}` });
      A.forEach((a, j) => {
        const point = shapes[series](x(risk.coverage[j]), y(risk[series][j]));
        Object.entries({ class: `point ${series}`, "data-j": j, "data-answer-cutoff": data.aText[j],
          "data-coverage": risk.coverage[j], "data-rate": risk[series][j] })
          .forEach(([name, value]) => point.setAttribute(name, String(value)));
        point.appendChild(svg("title", {}, `${A_TITLE} ${data.aText[j]}: ${percent(risk.coverage[j])} answered, `
          + `wrong-answer rate ${percent(risk.observed[j])} observed, at most ${percent(risk.bound[j], true)}`));
        point.addEventListener("click", () => select(risk.row, j));
        group.appendChild(point);
      });
      root.appendChild(group);
    }
    const r = data.recommended[1];
    for (const series of ["observed", "bound"]) {
      const px = x(risk.coverage[r]);
      const py = y(risk[series][r]);
      const star = svg("path", { class: "recommended", "data-j": r, "data-series": series });
      const corners = [];
      for (let n = 0; n < 10; n += 1) {
        const radius = (n % 2 === 0 ? 8 : 3.6);
        const angle = -Math.PI / 2 + (n * Math.PI) / 5;
        corners.push(`${(px + radius * Math.cos(angle)).toFixed(2)} ${(py + radius * Math.sin(angle)).toFixed(2)}`);
      }
      star.setAttribute("d", `M${corners.join("L")}Z`);
      root.appendChild(star);
    }
    const key = svg("g", { class: "key", transform: `translate(${size.left + w + 14} ${size.top + 8})` });
    const entries = [["observed", "observed wrong-answer rate"], ["bound", risk.boundWords],
      ...(risk.alpha !== null ? [["alpha", `ALPHA ${risk.alpha} (--max-wrong-rate)`]] : []),
      ["recommended", `recommended, ${A_TITLE} ${data.aText[r]}`]];
    entries.forEach(([series, words], n) => {
      const row = svg("g", { transform: `translate(0 ${n * 18})` });
      if (series === "alpha") {
        row.appendChild(svg("line", { x1: 0, x2: 18, y1: 0, y2: 0, class: "alpha" }));
      } else if (series === "recommended") {
        row.appendChild(svg("path", { class: "recommended", d: "M9 -7L11 -2L16 -2L12 1L13.5 6L9 3L4.5 6L6 1L2 -2L7 -2Z" }));
      } else {
        row.appendChild(svg("line", { x1: 0, x2: 18, y1: 0, y2: 0, class: `line ${series}` }));
        const mark = shapes[series](9, 0);
        mark.setAttribute("class", `point ${series}`);
        row.appendChild(mark);
      }
      row.appendChild(svg("text", { x: 24, y: 4 }, words));
      key.appendChild(row);
    });
    root.appendChild(key);
    document.getElementById("risk-coverage").appendChild(root);
  }

  // ---- the selected cell's questions -----------------------------------------------------------------
  let rows = [];
  let filter = "all";
  let search = "";
  let shown = LIST_PAGE;
  const lower = [];  // page strings in lower case, made when first searched

  function matches(row, needle) {
    const shown = row.first.shown;
    const indices = [row.question.id, row.question.q];
    if (shown) {
      indices.push(shown[0], data.sources[shown[1]][0]);  // the sentence and the title shown in this row
    }
    return indices.some((k) => {
      if (lower[k] === undefined) {
        lower[k] = S[k].toLowerCase();
      }
      return lower[k].includes(needle);
    });
  }

  function outcomeWords(codes) {
    const counts = new Map();
    for (const code of codes) {
      counts.set(code, (counts.get(code) || 0) + 1);
    }
    return [...counts.entries()].sort((x, y) => x[0] - y[0])
      .map(([code, n]) => (n === 1 || REPEATS === 1 ? LABEL[code] : `${LABEL[code]} x${n}`)).join(", ");
  }

  function sourceCell(shown) {
    const td = el("td");
    if (!shown) {
      return td;
    }
    const [titleIndex, urlIndex, dateIndex] = data.sources[shown[1]];
    const url = S[urlIndex];
    const title = S[titleIndex] || url;
    if (/^https?:\/\//i.test(url)) {
      td.appendChild(el("a", { href: url, rel: "noopener noreferrer nofollow", target: "_blank" }, title));
    } else {
      td.appendChild(el("span", {}, title));
      td.appendChild(el("span", { class: "unsafe" }, ` (not an http(s) link: ${url})`));
    }
    if (dateIndex >= 0) {
      td.appendChild(el("span", { class: "date" }, ` ${S[dateIndex]}`));
    }
    return td;
  }

  function renderList() {
    const body = document.getElementById("questions-body");
    const needle = search.toLowerCase();
    const visible = rows.filter((row) => (filter === "all" || row.codes.includes(Number(filter)))
      && (needle === "" || matches(row, needle)));
    const fragment = document.createDocumentFragment();
    for (const row of visible.slice(0, shown)) {
      const tr = el("tr", { "data-outcome": LABEL[row.codes[0]] });
      tr.appendChild(el("td", {}, S[row.question.id]));
      tr.appendChild(el("td", {}, S[row.question.q]));
      tr.appendChild(el("td", { class: "outcome" }, outcomeWords(row.codes)));
      const first = row.first;
      const quote = el("td", { class: first.quoted ? "quote" : "closest" });
      if (first.shown) {
        quote.appendChild(el("span", { class: "sentence" }, S[first.shown[0]]));
        if (!first.quoted) {
          quote.appendChild(el("span", { class: "note" }, " (closest candidate, not quoted)"));
        }
      }
      tr.appendChild(quote);
      const score = first.shown && first.shown[2] !== null ? formatNumber(first.shown[2]) : "";
      const probability = score === "" || S[first.shown[3]] === data.scoreName ? score
        : `${S[first.shown[3]]} ${score}`;
      tr.appendChild(el("td", { class: "number" }, probability));
      tr.appendChild(sourceCell(first.shown));
      fragment.appendChild(tr);
    }
    body.replaceChildren(fragment);
    document.getElementById("list-count").textContent =
      `${visible.length} of ${rows.length} question(s)${visible.length > shown ? `, the first ${shown} shown` : ""}`;
    document.getElementById("more").hidden = visible.length <= shown;
  }

  function changesTowards(i, j, di, dj, words) {
    const ni = i + di;
    const nj = j + dj;
    if (ni < 0 || nj < 0 || ni >= H.length || nj >= A.length) {
      return null;
    }
    const changed = [];
    for (const q of data.questions) {
      const here = questionAt(q, i, j).codes;
      const there = questionAt(q, ni, nj).codes;
      if (here.join() !== there.join()) {
        changed.push(`${S[q.id]}: ${outcomeWords(here)} -> ${outcomeWords(there)}`);
      }
    }
    const where = di !== 0 ? `${H_TITLE} ${data.hText[ni]}` : `${A_TITLE} ${data.aText[nj]}`;
    const shownChanges = changed.slice(0, 8).join("; ");
    const more = changed.length > 8 ? `; and ${changed.length - 8} more` : "";
    return `${words} (${where}): ${changed.length === 0 ? "nothing changes" : `${changed.length} question(s) change: ${shownChanges}${more}`}`;
  }

  function select(i, j) {
    selected = [i, j];
    for (const panel of panels) {
      drawPanel(panel);
    }
    rows = cellRows(i, j);
    shown = LIST_PAGE;
    const listed = OUT.map((name, k) => rows.filter((row) => row.codes.includes(k)).length);
    if (filter !== "all" && listed[Number(filter)] === 0) {
      filter = "all";
    }
    document.getElementById("cell-title").textContent =
      `${H_TITLE} ${data.hText[i]}, ${A_TITLE} ${data.aText[j]}`;
    const summary = shownMeans(i, j).map(([k, n]) => `${LABEL[k]} ${formatNumber(n)}`).join(", ");
    const mean = REPEATS > 1 ? " (means over repeats)" : "";
    const notes = [];
    if (data.default && i === data.default[0] && j === data.default[1]) notes.push("the default");
    if (i === data.recommended[0] && j === data.recommended[1]) notes.push("recommended");
    if (data.certified) notes.push(data.certified[i][j] ? "certified" : "not certified");
    document.getElementById("cell-counts").textContent =
      `${summary}${mean}; score ${formatNumber(data.grids.score[i][j])}${notes.length ? ` (${notes.join(", ")})` : ""}`;
    const steps = document.getElementById("steps");
    steps.replaceChildren();
    for (const [di, dj, words] of [[0, 1, "One step right"], [0, -1, "One step left"], [1, 0, "One step up"],
      [-1, 0, "One step down"]]) {
      const line = changesTowards(i, j, di, dj, words);
      if (line !== null) {
        steps.appendChild(el("li", {}, line));
      }
    }
    const buttons = document.getElementById("filters");
    buttons.replaceChildren();
    for (const [value, words] of [["all", "all"], ...OUT.map((name, k) => [String(k), LABEL[k]])]) {
      if (value !== "all" && listed[Number(value)] === 0) {
        continue;
      }
      const button = el("button", { type: "button", "data-filter": value, "aria-pressed": String(filter === value),
        title: value === "all" ? "every question" : `the questions ${words} in ${REPEATS > 1 ? "any repeat" : "this cell"}` },
      value === "all" ? `all (${rows.length})` : `${words} (${listed[Number(value)]})`);
      button.addEventListener("click", () => {
        filter = value;
        shown = LIST_PAGE;
        for (const other of buttons.children) {
          other.setAttribute("aria-pressed", String(other === button));
        }
        renderList();
      });
      buttons.appendChild(button);
    }
    renderList();
  }

  document.getElementById("search").addEventListener("input", (event) => {
    search = event.target.value;
    shown = LIST_PAGE;
    renderList();
  });
  document.getElementById("more").addEventListener("click", () => {
    shown += LIST_PAGE;
    renderList();
  });

  buildPanels();
  drawLegend();
  buildRisk();
  select(data.recommended[0], data.recommended[1]);
  // For tests and the curious: the page's own answers, computed by the functions the view uses.
  window.quotefinderReport = {
    cellCounts,
    cellRows: (i, j) => cellRows(i, j).length,
    certified: (k) => (data.certified ? data.certified[Math.floor(k / A.length)][k % A.length] === 1 : false),
    geometry: { left: margin.left, top: margin.top, cell, rows: H.length, columns: A.length },
    drawn: (grid) => panels.find((panel) => panel.name === grid).drawn,  // the marks as last drawn, with where
    select,
  };
}());
