"use strict";
// The sweep explorer: heatmaps of the grid, the counts of the cell under the pointer, and the questions of
// the cell clicked, with what changes one grid step away. Everything it shows is computed from the sweep's
// own data embedded in the page; page text reaches the DOM only as text (textContent), and a link only ever
// opens an http(s) URL.
(function () {
  const data = JSON.parse(document.getElementById("sweep-data").textContent);
  const S = data.strings;
  const H = data.h;
  const A = data.a;
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

  // ---- the decision rule, as the sweep applies it ---------------------------------------------------
  // The set a HAS_ANSWER_CUTOFF h selects is the number of the question's distinct has_answer values below h
  // (a value equal to h passes it); its top candidate is quoted when its compare probability is >= the
  // ANSWER_CUTOFF. These are the same comparisons, on the same double-precision numbers, as the sweep's.
  function setIndex(thresholds, h) {
    let k = 0;
    while (k < thresholds.length && thresholds[k] < h) {
      k += 1;
    }
    return k;
  }

  function decisionAt(rep, i, j) {
    const k = setIndex(rep.t, H[i]);
    const top = k < rep.tops.length ? rep.tops[k] : null;
    if (top !== null && top[2] >= A[j]) {
      return { quoted: true, code: top[3], shown: top, p: top[2] };
    }
    if (top !== null) {
      return { quoted: false, code: rep.none, shown: top, p: top[2] };
    }
    return { quoted: false, code: rep.none, shown: rep.best, p: null };
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
  const PALETTE = [[0, 32, 77], [65, 77, 107], [124, 123, 120], [188, 175, 111], [255, 234, 70]];  // cividis

  function colour(value, low, high) {
    const x = high > low ? (value - low) / (high - low) : 0.5;
    const position = Math.min(Math.max(x, 0), 1) * (PALETTE.length - 1);
    const k = Math.min(Math.floor(position), PALETTE.length - 2);
    const f = position - k;
    return PALETTE[k].map((c, n) => Math.round(c + f * (PALETTE[k + 1][n] - c)));
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

  // A panel's colours, one pixel per cell, drawn once and scaled up on every redraw.
  function paintCells(panel) {
    let low = Infinity;
    let high = -Infinity;
    for (const row of panel.values) {
      for (const value of row) {
        low = Math.min(low, value);
        high = Math.max(high, value);
      }
    }
    const image = new ImageData(A.length, H.length);
    for (let i = 0; i < H.length; i += 1) {
      for (let j = 0; j < A.length; j += 1) {
        const at = 4 * ((H.length - 1 - i) * A.length + j);
        image.data.set([...colour(panel.values[i][j], low, high), 255], at);
      }
    }
    panel.cells = document.createElement("canvas");
    panel.cells.width = A.length;
    panel.cells.height = H.length;
    panel.cells.getContext("2d").putImageData(image, 0, 0);
    panel.scale.textContent = `${formatNumber(low)} to ${formatNumber(high)}`;
  }

  function drawPanel(panel) {
    const canvas = panel.canvas;
    const context = canvas.getContext("2d");
    context.clearRect(0, 0, canvas.width, canvas.height);
    context.imageSmoothingEnabled = false;
    context.drawImage(panel.cells, margin.left, margin.top, A.length * cell, H.length * cell);
    if (data.certified) {
      context.strokeStyle = "#ff2d2d";
      context.lineWidth = 2;
      context.stroke(outline);
    }
    const centre = (i, j) => [margin.left + (j + 0.5) * cell, margin.top + (H.length - 1 - i + 0.5) * cell];
    if (data.default) {
      const [x, y] = centre(data.default[0], data.default[1]);
      context.strokeStyle = "#ff2d2d";
      context.lineWidth = 2;
      context.beginPath();
      context.arc(x, y, Math.max(4, cell * 0.6), 0, 2 * Math.PI);
      context.stroke();
    }
    const [rx, ry] = centre(data.recommended[0], data.recommended[1]);
    context.fillStyle = "#000000";
    context.strokeStyle = "#ff2d2d";
    context.beginPath();
    for (let n = 0; n < 10; n += 1) {
      const radius = (n % 2 === 0 ? 1 : 0.45) * Math.max(5, cell * 0.75);
      const angle = -Math.PI / 2 + (n * Math.PI) / 5;
      context.lineTo(rx + radius * Math.cos(angle), ry + radius * Math.sin(angle));
    }
    context.closePath();
    context.fill();
    context.stroke();
    if (selected) {
      const x = margin.left + selected[1] * cell;
      const y = margin.top + (H.length - 1 - selected[0]) * cell;
      context.strokeStyle = "#ffffff";
      context.lineWidth = 2;
      context.strokeRect(x - 1, y - 1, cell + 2, cell + 2);
      context.strokeStyle = "#000000";
      context.lineWidth = 1;
      context.strokeRect(x - 2.5, y - 2.5, cell + 5, cell + 5);
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
    context.fillText("ANSWER_CUTOFF", margin.left + (A.length * cell) / 2, margin.top + H.length * cell + 27);
    context.save();
    context.translate(14, margin.top + (H.length * cell) / 2);
    context.rotate(-Math.PI / 2);
    context.fillText("HAS_ANSWER_CUTOFF", 0, 0);
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
    tooltip.appendChild(el("strong", {}, `HAS_ANSWER_CUTOFF ${data.hText[i]}, ANSWER_CUTOFF ${data.aText[j]}`));
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
      const panel = { canvas, values: data.grids[name], scale };
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
      const probability = first.p !== null ? formatNumber(first.p)
        : first.shown ? `has_answer ${formatNumber(first.shown[2])}` : "";
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
    const where = di !== 0 ? `HAS_ANSWER_CUTOFF ${data.hText[ni]}` : `ANSWER_CUTOFF ${data.aText[nj]}`;
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
      `HAS_ANSWER_CUTOFF ${data.hText[i]}, ANSWER_CUTOFF ${data.aText[j]}`;
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
  select(data.recommended[0], data.recommended[1]);
  // For tests and the curious: the page's own answers, computed by the functions the view uses.
  window.quotefinderReport = {
    cellCounts,
    cellRows: (i, j) => cellRows(i, j).length,
    certified: (k) => (data.certified ? data.certified[Math.floor(k / A.length)][k % A.length] === 1 : false),
    geometry: { left: margin.left, top: margin.top, cell, rows: H.length, columns: A.length },
    select,
  };
}());
