// toybattle's game review on the page (issue 31): it lives in the replay viewer, whose positions
// and board drawing it reuses. A review runs on the server; this polls its progress, may cancel
// it, then draws the win-probability graph with its marks, the totals and verdicts, and, at a
// reviewed decision, the better decision on the board beside the one played.
"use strict";

// Kept in its own scope: only reviewAt is called from app.js (by the replay viewer).
(function () {

  // The review shown: its id while it runs, its data once done, the replay it is of.
  const review = { id: null, data: null, timer: null, replay: null };
  app.review = review; // a test driving the page reads it
  const pct = (p) => Math.round(p * 100) + "%";
  const signed = (p) => (p >= 0 ? "+" : "−") + Math.abs(Math.round(p * 100));
  const MARK_COLOUR = { blunder: "#c00", mistake: "#e67e00", lucky: "#19a35b", unlucky: "#7b3fc4" };

  // Styles of the review box (kept here, beside the code that draws it).
  document.head.appendChild(Object.assign(document.createElement("style"), {
    textContent: `
  #review-box { background: #fff; border-radius: 8px; padding: 6px; margin: 8px 0; font-size: 13px; }
  #review-box .row { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
  #review-mine { font-size: 13px; }
  #review-mine .row { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
  #review-progress { flex: 1; min-width: 80px; }
  #review-graph { width: 100%; height: 150px; display: block; }
  #review-graph .axis { stroke: #555; stroke-width: .6; }
  #review-graph .grid { stroke: #ddd; stroke-width: .4; }
  #review-graph .lbl { font-size: 7px; fill: #555; }
  #review-graph .line { fill: none; stroke: var(--blue); stroke-width: 1.2; }
  #review-graph .pt { cursor: pointer; }
  #review-graph .now { stroke: #f2b705; stroke-width: 1; }
  table.review-totals { border-collapse: collapse; width: 100%; margin: 4px 0; }
  table.review-totals td, table.review-totals th { border-bottom: 1px solid #ddd; padding: 2px 4px; text-align: right; }
  table.review-totals th:first-child, table.review-totals td:first-child { text-align: left; }
  #review-verdicts div, #review-marks li { margin: 2px 0; }
  #review-marks { padding-left: 18px; max-height: 160px; overflow-y: auto; }
  #review-marks li { cursor: pointer; }
  #review-here { margin: 4px 0; min-height: 1.4em; }
  .best-ring { fill: none; stroke: #19a35b; stroke-width: 1.4; pointer-events: none; }
  .played-ring { fill: none; stroke: #c00; stroke-width: 1; stroke-dasharray: 1.5 1; pointer-events: none; }
  .best-tile { pointer-events: none; }
  .best-tile text { fill: #fff; text-anchor: middle; font-weight: 700; pointer-events: none; }
  `,
  }));

  // The review box, in the replay viewer's panel under its controls.
  const box = div(null, null);
  box.id = "review-box";
  box.innerHTML = `
  <div class="row"><strong>Game review</strong>
    <select id="review-budget" title="search iterations per decision">
      <option value="">standard (the strong level's search)</option>
      <option value="2000">quick (2,000 iterations a decision)</option>
      <option value="50000">deep (50,000 iterations a decision)</option>
    </select>
    <button id="rp-review">Review this game</button></div>
  <div class="row" id="review-running" hidden><progress id="review-progress"></progress><span id="review-count"></span><button id="review-cancel">Cancel</button></div>
  <div id="review-result" hidden>
    <div id="review-note" class="note"></div>
    <svg id="review-graph" viewBox="0 0 300 130" role="img" aria-label="win-probability graph"></svg>
    <div class="note">Click a point to see that position. <span style="color:#c00">●</span> blunder <span style="color:#e67e00">●</span> mistake <span style="color:#19a35b">●</span> lucky draw <span style="color:#7b3fc4">●</span> unlucky draw</div>
    <div id="review-here"></div>
    <table class="review-totals" id="review-totals"></table>
    <div id="review-verdicts"></div>
    <details open><summary>Mistakes and draws that mattered</summary><ol id="review-marks"></ol></details>
  </div>`;
  $("replay-panel").insertBefore(box, $("replay-sides"));

  // After a game: its record in the replay viewer, and its review.
  $("btn-review").onclick = async () => {
    try {
      const rec = await apiText("GET", "/api/games/" + app.game.id + "/record");
      await openReplay(await api("POST", "/api/replay", rec), rec);
      await startReview("/api/games/" + app.game.id + "/review");
    } catch (e) { showError(e); }
  };
  $("rp-review").onclick = () => startReview("/api/replay/review", app.replayText).catch(showError);
  $("review-cancel").onclick = async () => {
    try { showStatus(await api("POST", "/api/reviews/" + review.id + "/cancel")); } catch (e) { showError(e); }
  };

  async function startReview(call, body) {
    clearReview();
    replayTo(app.replayAt); // the board without the last review's drawing
    const budget = $("review-budget").value;
    const status = await api("POST", call + (budget ? "?iterations=" + budget : ""), body);
    review.id = status.id;
    review.replay = app.replay;
    showStatus(status);
  }

  function clearReview() {
    if (review.timer) clearTimeout(review.timer);
    Object.assign(review, { id: null, data: null, timer: null, replay: app.replay });
    $("review-running").hidden = true;
    $("review-result").hidden = true;
    $("rp-review").disabled = false;
  }

  // Shows a review's progress, polling until it stops; then draws it.
  function showStatus(s) {
    if (s.id !== review.id) return;
    if (review.timer) clearTimeout(review.timer);
    review.timer = null;
    $("review-running").hidden = !s.running;
    $("rp-review").disabled = s.running;
    $("review-progress").max = Math.max(1, s.total);
    $("review-progress").value = s.done;
    $("review-count").textContent = s.total ? s.done + " of " + s.total + " reviewed" : "waiting for the cores (other games are thinking)…";
    if (s.failure) { showError(s.failure); return; }
    if (s.running) {
      review.timer = setTimeout(async () => {
        try { showStatus(await api("GET", "/api/reviews/" + review.id)); } catch (e) { showError(e); }
      }, 400);
      return;
    }
    review.data = s.review;
    drawReview();
  }

  function drawReview() {
    const r = review.data;
    $("review-result").hidden = false;
    const budget = r.iterations ? r.iterations.toLocaleString("en") + " search iterations a decision" : "";
    $("review-note").textContent = (r.complete ? "Complete review" : "Cancelled: " + r.reviewed + " of " + r.total +
      " decisions and draws reviewed, shown below") + (budget ? " · " + budget : "") +
      ". Thresholds: inaccuracy " + pct(r.thresholds[0]) + ", mistake " + pct(r.thresholds[1]) + ", blunder " + pct(r.thresholds[2]) + " of win probability lost.";
    drawTotals(r);
    drawMarks(r);
    drawReviewGraph(r);
    reviewAt(app.replayAt);
  }

  function drawTotals(r) {
    const t = $("review-totals");
    t.innerHTML = "<tr><th>player</th><th>accuracy</th><th>inacc.</th><th>mist.</th><th>blund.</th><th>skill</th><th>luck</th></tr>";
    for (const p of r.totals) {
      const tr = document.createElement("tr");
      for (const v of [p.colour + " (" + p.name + ")", (p.decisions ? Math.round(p.accuracy) + "%" : "—"), p.inaccuracies, p.mistakes, p.blunders, signed(p.skill), signed(p.luck)]) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.appendChild(td);
      }
      t.appendChild(tr);
    }
    $("review-verdicts").replaceChildren(...r.totals.map((p) => div(null, null, p.verdict)));
  }

  // The decisions with an error class and the draws marked on the graph, worst first.
  function drawMarks(r) {
    const items = [];
    for (const d of r.decisions) {
      if (d.class) items.push({ step: d.step, weight: d.error, text: "turn " + d.turn + ", " + d.player + " " + d.class + ": " + d.played + " (" + pct(d.played_win) + "); better " + d.best + " (" + pct(d.best_win) + ")" });
    }
    const marked = new Set(r.graph.filter((g) => g.mark === "lucky" || g.mark === "unlucky").map((g) => g.step));
    for (const c of r.chances) {
      if (marked.has(c.step)) items.push({ step: c.step, weight: Math.abs(c.luck), text: "turn " + c.turn + ", " + c.player + " " + (c.luck > 0 ? "lucky" : "unlucky") + " " + c.kind + ": " + c.outcome.replace(/^chance /, "") + " (" + signed(c.luck) + " points)" });
    }
    items.sort((a, b) => b.weight - a.weight);
    const ol = $("review-marks");
    ol.replaceChildren();
    for (const it of items) {
      const li = document.createElement("li");
      li.textContent = it.text;
      li.onclick = () => replayTo(it.step);
      ol.appendChild(li);
    }
    if (!items.length) ol.appendChild(Object.assign(document.createElement("li"), { textContent: "none" }));
  }

  // Blue's win probability against the steps, with axes, turn labels and the marks; a point
  // clicked shows the position before its step.
  function drawReviewGraph(r) {
    const svg = $("review-graph");
    svg.replaceChildren();
    const L = 24, R = 294, T = 6, B = 112;
    const steps = Math.max(1, r.steps);
    const x = (step) => L + (R - L) * step / steps;
    const y = (p) => B - (B - T) * p;
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      el("line", { x1: L, x2: R, y1: y(p), y2: y(p), class: "grid" }, svg);
      el("text", { x: L - 2, y: y(p) + 2, class: "lbl", "text-anchor": "end" }, svg, pct(p));
    }
    el("line", { x1: L, x2: L, y1: T, y2: B, class: "axis" }, svg);
    el("line", { x1: L, x2: R, y1: B, y2: B, class: "axis" }, svg);
    // A turn label where each labelled turn starts, about ten along the axis.
    const turns = r.graph.length ? r.graph[r.graph.length - 1].turn : 1;
    const every = Math.max(1, Math.ceil(turns / 10));
    let labelled = 0;
    for (const g of r.graph) {
      if (g.turn > labelled && (g.turn - 1) % every === 0) {
        labelled = g.turn;
        el("line", { x1: x(g.step), x2: x(g.step), y1: B, y2: B + 2, class: "axis" }, svg);
        el("text", { x: x(g.step), y: B + 9, class: "lbl", "text-anchor": "middle" }, svg, g.turn);
      }
    }
    el("text", { x: (L + R) / 2, y: 129, class: "lbl", "text-anchor": "middle" }, svg, "turn");
    el("text", { x: L + 2, y: T + 5, class: "lbl" }, svg, "blue's chance to win");
    el("polyline", { points: r.graph.map((g) => x(g.step) + "," + y(g.blue)).join(" "), class: "line" }, svg);
    el("line", { x1: x(app.replayAt), x2: x(app.replayAt), y1: T, y2: B, class: "now", id: "review-now" }, svg);
    for (const g of r.graph) {
      const colour = MARK_COLOUR[g.mark] || "#2d6cd2";
      const pt = el("circle", { cx: x(g.step), cy: y(g.blue), r: g.mark ? 3 : 1.6, fill: colour, class: "pt" + (g.mark ? " mark " + g.mark : ""), "data-step": g.step }, svg);
      el("title", {}, pt, "before step " + (g.step + 1) + ", turn " + g.turn + ": blue " + pct(g.blue) + (g.mark ? " — " + (g.player || "") + " " + g.mark : ""));
      pt.addEventListener("click", () => replayTo(g.step));
    }
  }

  // The viewer's position i follows its "step i" (counted from 1) and comes before the record's
  // step of index i, which the review speaks of: the viewer's step i + 1, the next one.
  const next = (i) => "Next, step " + (i + 1) + ": ";

  // Called by the replay viewer after it draws position `i` (after its step i): what the review
  // says of the next step (the record's index i), and the better decision drawn on the board.
  function reviewAt(i) {
    if (review.replay !== app.replay) { clearReview(); return; }
    const r = review.data;
    if (!r) return;
    const now = $("review-now");
    if (now) {
      const x = 24 + 270 * i / Math.max(1, r.steps);
      now.setAttribute("x1", x); now.setAttribute("x2", x);
    }
    const here = $("review-here");
    const k = r.decisions.findIndex((d) => d.step === i);
    const c = r.chances.find((e) => e.step === i);
    if (k >= 0) {
      const d = r.decisions[k], s = r.shown[k];
      here.textContent = next(i) + d.player + " played " + d.played + ": " + pct(d.played_win) +
        (d.best === d.played ? " — the best decision." : "; better " + d.best + ": " + pct(d.best_win) + (d.class ? " (" + d.class + ")" : ""));
      drawBetter(s, d);
    } else if (c) {
      here.textContent = next(i) + c.player + "'s " + c.kind + ": " + c.outcome.replace(/^chance /, "") + " of " + c.outcomes +
        " possible; " + pct(c.before) + " before, " + pct(c.after) + " after (luck " + signed(c.luck) + ")";
    } else {
      const why = r.complete ? "a forced decision" : "forced, or not reached before the cancel";
      here.textContent = i < r.steps ? next(i) + "not reviewed (" + why + ")." : "The end of the game.";
    }
  }

  // The played decision's node ringed dashed red; the better one's ringed green, with its tile.
  function drawBetter(s, d) {
    const svg = $("replay-board");
    const nodes = nodeById(app.replay.terrain);
    const place = at(app.replayFlip); // the node's place on the picture, the board turned or not
    const ring = (id, cls, r) => { if (nodes[id]) { const p = place(nodes[id]); el("circle", { cx: p.x, cy: p.y, r, class: cls }, svg); } };
    if (d.best === d.played) return;
    for (const id of [s.played.node, s.played.to]) if (id != null) ring(id, "played-ring", 6.2);
    for (const id of [s.best.node, s.best.to]) if (id != null) ring(id, "best-ring", 7);
    const tileAt = s.best.to != null ? s.best.to : s.best.node;
    if (tileAt != null && nodes[tileAt] && s.best.troop) {
      const n = place(nodes[tileAt]);
      const g = el("g", { class: "best-tile" }, svg);
      el("rect", { x: n.x + 3, y: n.y - 11, width: 9, height: 8, rx: 1.2, fill: d.player === "blue" ? "#2d6cd2" : "#d23d3d", stroke: "#19a35b", "stroke-width": 0.8 }, g);
      el("text", { x: n.x + 7.5, y: n.y - 6.5, "font-size": 4 }, g, VALUE[s.best.troop]);
      el("text", { x: n.x + 7.5, y: n.y - 3.8, "font-size": 1.8 }, g, s.best.troop);
    }
    el("text", { x: 50, y: -2, "text-anchor": "middle", "font-size": 3.2, fill: "#19a35b", class: "best-caption" }, svg,
      "better: " + d.best + " (" + pct(d.best_win) + ") · played: " + d.played + " (" + pct(d.played_win) + ")");
  }

  // During a game: the human's own decisions so far (the server reviews nothing else before the
  // end, so nothing hidden comes back), listed in the game panel with the better decision.
  $("btn-review-mine").onclick = async () => {
    const id = app.game.id;
    const list = $("review-mine-list");
    list.replaceChildren();
    $("review-mine").hidden = false;
    $("btn-review-mine").disabled = true;
    try {
      let s = await api("POST", "/api/games/" + id + "/review?iterations=2000");
      while (s.running) {
        $("review-mine-progress").max = Math.max(1, s.total);
        $("review-mine-progress").value = s.done;
        $("review-mine-count").textContent = s.done + " of " + s.total + " of your decisions reviewed";
        await new Promise((ok) => setTimeout(ok, 400));
        s = await api("GET", "/api/reviews/" + s.id);
      }
      if (s.failure) throw s.failure;
      const r = s.review;
      $("review-mine-progress").max = 1; $("review-mine-progress").value = 1;
      $("review-mine-count").textContent = r.decisions.length + " of your decisions reviewed (forced ones left out); " + r.totals.find((t) => t.decisions).verdict;
      for (const d of r.decisions) {
        const li = document.createElement("li");
        li.className = "review-mine-decision" + (d.class ? " " + d.class : "");
        li.textContent = "turn " + d.turn + ": " + d.played + " (" + pct(d.played_win) + ")" +
          (d.best === d.played ? " — the best decision" : "; better " + d.best + " (" + pct(d.best_win) + ")" + (d.class ? " — " + d.class : ""));
        list.appendChild(li);
      }
    } catch (e) { showError(e); }
    $("btn-review-mine").disabled = false;
  };

  window.reviewAt = reviewAt;
})();
