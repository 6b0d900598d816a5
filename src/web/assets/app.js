// toybattle's page: plain JavaScript, no build step. It draws what the server sends (the human's
// observation only) and sends back the decisions the human clicks.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
const VALUE = { Kwak: "X", Skully: "1", Capn: "2", Jumbo: "3", Hook: "4", "XB-42": "5", Star: "6", Roxy: "7" };
// Special-base icons, drawn as SVG paths in a box from -1 to 1 (no emoji: a missing emoji font
// shows an empty box). The value restriction shows its values instead (see drawIcon).
const ICON = {
  return_own_troop_to_rack: "M0,-0.9 V0.35 M-0.4,-0.05 L0,0.35 L0.4,-0.05 M-0.8,0.8 H0.8",
  draw_one: "M-0.55,-0.8 H0.55 V0.8 H-0.55 Z M-0.3,0 H0.3 M0,-0.3 V0.3",
  move_adjacent_enemy_troop: "M-0.8,-0.35 H0.7 M0.4,-0.65 L0.75,-0.35 L0.4,-0.05 M0.8,0.35 H-0.7 M-0.4,0.05 L-0.75,0.35 L-0.4,0.65",
  recover_own_troop_from_discard: "M0.65,-0.2 A0.7,0.7 0 1 0 0.45,0.55 M0.75,-0.85 L0.65,-0.2 L0.05,-0.4",
  no_troop_effect: "M-0.75,0 A0.75,0.75 0 1 0 0.75,0 A0.75,0.75 0 1 0 -0.75,0 M-0.53,0.53 L0.53,-0.53",
  // Battlefield freezes a tile of the opponent's rack: a sight aimed at it, not a frozen mark.
  freeze_opponent_rack_troop: "M-0.55,0 A0.55,0.55 0 1 0 0.55,0 A0.55,0.55 0 1 0 -0.55,0 M0,-0.95 V-0.35 M0,0.35 V0.95 M-0.95,0 H-0.35 M0.35,0 H0.95",
};
const END_WORDS = { hq: "a tile on the enemy HQ", medals: "the medals needed", blocked: "the other side could neither draw nor place", resign: "resignation" };
// Levels in a player's words; the ladder (results/levels/ladder.md) is shown under them.
const LEVEL_WORDS = {
  beginner: "plays by simple rules and answers at once: a first opponent",
  casual: "thinks briefly; on the ladder only a little stronger than beginner",
  strong: "thinks about a quarter of a second a move; wins about 3 games in 4 against beginner and casual",
  strongest: "thinks about a second a move on two cores; as strong as strong on the ladder so far",
};

// pending: requests under way (a test driving the page waits for 0).
// flip: the player's choice to turn the board, on top of the default (their HQ at the bottom).
const app = { hinting: false, pending: 0, meta: null, terrains: {}, game: null, selected: null, moveFrom: null, polling: false, replay: null, replayText: null, replayAt: 0, flip: false, replayFlip: false, hintAll: false };

// ---------- server calls ----------
// The answer's text as sent: a record's 64-bit seeds would lose digits as JavaScript numbers.
async function apiText(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  app.pending++;
  let res, text;
  try {
    res = await fetch(path, opts);
    text = await res.text();
  } finally { app.pending--; }
  if (!res.ok) {
    let error;
    try { error = JSON.parse(text).error; } catch (e) { error = text; }
    throw new Error(error || res.statusText);
  }
  return text;
}
async function api(method, path, body) {
  const text = await apiText(method, path, body);
  try { return JSON.parse(text); } catch (e) { throw new Error("the server's answer is not JSON: " + text.slice(0, 80)); }
}
function showError(e) {
  const box = $("error");
  box.textContent = e ? String(e.message || e) : "";
  box.hidden = !e;
}
async function terrain(key) {
  if (!app.terrains[key]) app.terrains[key] = await api("GET", "/api/terrains/" + encodeURIComponent(key));
  return app.terrains[key];
}

// ---------- drawing helpers ----------
function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVG, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function div(cls, parent, text) {
  const e = document.createElement("div");
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function tileEl(colour, troop, opts) {
  opts = opts || {};
  const t = div("tile " + (troop ? colour : "back") + (opts.small ? " small" : ""));
  if (troop) {
    div("v", t, VALUE[troop]);
    div("n", t, troop);
    t.title = colour + " " + troop + " (strength " + VALUE[troop] + ")";
  } else {
    t.title = "a hidden tile";
  }
  if (opts.frozen) {
    t.classList.add("frozen");
    t.title += ", frozen: it cannot be placed this turn";
    div("frozen-label", t, "frozen");
  }
  return t;
}
const nodeById = (tv) => Object.fromEntries(tv.nodes.map((n) => [n.id, n]));

// A special base's icon at (x, y), s units across.
function drawIcon(g, n, x, y, s) {
  if (n.allowed) {
    el("text", { x, y: y + 0.8, class: "icon-values" }, g, n.allowed.join(""));
    return;
  }
  const d = ICON[n.effect];
  if (d) el("path", { d, class: "icon", transform: "translate(" + x + " " + y + ") scale(" + s / 2 + ")" }, g);
}
// A node's place on the picture: turned half a turn when flipped, so the flipped player's HQ
// is at the bottom (the terrain data has blue at the bottom).
const at = (flip) => (p) => (flip ? { x: 100 - p.x, y: 100 - p.y } : { x: p.x, y: p.y });

// Draws a terrain and a position into an SVG. marks: {legal: Set, last: Set, pending: id,
// hints: [{node, troop, colour, letter}], flip}; onNode(id).
function drawBoard(svg, tv, pos, marks, onNode, onInspect) {
  svg.replaceChildren();
  const place = at(marks.flip);
  const nodes = Object.fromEntries(tv.nodes.map((n) => [n.id, { ...n, ...place(n) }]));
  for (const [a, b] of tv.edges) {
    el("line", { x1: nodes[a].x, y1: nodes[a].y, x2: nodes[b].x, y2: nodes[b].y, class: "edge" }, svg);
  }
  const takers = Object.fromEntries((pos.taken_regions || []).map((r) => [r.id, r]));
  const taken = new Set(pos.regions_taken);
  for (const r of tv.regions) {
    const p = place(r), by = takers[r.id];
    const g = el("g", { class: "region-mark", "data-region": r.id }, svg);
    const c = el("circle", { cx: p.x, cy: p.y, r: 2.6, class: "region" + (by ? " taken " + by.by : taken.has(r.id) ? " taken" : "") }, g);
    let title = "region " + r.id + ": " + r.medals + " medal" + (r.medals > 1 ? "s" : "") + " (bases " + r.bases.join(", ") + ")";
    if (by) title += ", taken by " + by.by + " on turn " + by.turn;
    else if (taken.has(r.id)) title += ", taken";
    el("title", {}, c, title);
    // A medal with its count; once taken, in the taker's colour.
    el("text", { x: p.x, y: p.y + 0.85, class: "region-text" + (by || taken.has(r.id) ? " taken" : "") }, g, r.medals);
  }
  const stacks = Object.fromEntries(pos.stacks.map((s) => [s.node, s.tiles]));
  for (const n of Object.values(nodes).sort((a, b) => a.id - b.id)) {
    const g = el("g", { "data-node": n.id }, svg);
    const cls = n.kind === "hq" ? "node hq-" + n.side : "node " + n.kind;
    if (n.kind === "hq") el("rect", { x: n.x - 4.6, y: n.y - 4.6, width: 9.2, height: 9.2, rx: 1.5, class: cls }, g);
    else el("circle", { cx: n.x, cy: n.y, r: 4.4, class: cls }, g);
    // Rings under the tiles, so that the stack's count and the node id stay readable.
    if (marks.legal && marks.legal.has(n.id)) el("circle", { cx: n.x, cy: n.y, r: 5.6, class: "legal-ring" }, g);
    if (marks.last && marks.last.has(n.id)) el("circle", { cx: n.x, cy: n.y, r: 5.0, class: "last-ring" }, g);
    if (marks.pending === n.id) el("circle", { cx: n.x, cy: n.y, r: 6.2, class: "pending-ring" }, g);
    const tiles = stacks[n.id];
    if (tiles && tiles.length) {
      const top = tiles[tiles.length - 1];
      const s = el("g", { class: "stack" }, g);
      el("rect", { x: n.x - 3.8, y: n.y - 3.8, width: 7.6, height: 7.6, rx: 1.2, fill: top.colour === "blue" ? "#2d6cd2" : "#d23d3d" }, s);
      el("text", { x: n.x, y: n.y + 0.7, class: "v" }, s, VALUE[top.troop]);
      el("text", { x: n.x, y: n.y + 3.1, class: "n" }, s, top.troop);
      if (tiles.length > 1) {
        el("circle", { cx: n.x + 3.8, cy: n.y - 3.8, r: 1.6, class: "count" }, s);
        el("text", { x: n.x + 3.8, y: n.y - 3.0, class: "h" }, s, tiles.length);
      }
      // The node id in a tab under the tile, outside every ring.
      el("rect", { x: n.x - 2, y: n.y + 4.3, width: 4, height: 2.6, rx: 0.8, class: "id-tab" }, g);
      el("text", { x: n.x, y: n.y + 6.2, class: "stack-id" }, g, n.id);
      if (n.effect) {
        el("circle", { cx: n.x - 3.8, cy: n.y - 3.8, r: 1.7, class: "icon-disc" }, g);
        drawIcon(g, n, n.x - 3.8, n.y - 3.8, 2.2);
      }
    } else {
      el("text", { x: n.x, y: n.y + (n.effect ? -1.0 : 0.9), class: "node-id" }, g, n.id);
      if (n.effect) drawIcon(g, n, n.x, n.y + 1.9, 2.8);
    }
    for (const h of (marks.hints || []).filter((h) => h.node === n.id)) {
      const hg = el("g", { class: "hint-tile", "data-hint": h.letter }, g);
      el("rect", { x: n.x - 3.4, y: n.y - 3.4, width: 6.8, height: 6.8, rx: 1.1, class: "hint-rect " + h.colour }, hg);
      if (h.troop) el("text", { x: n.x, y: n.y + 1.2, class: "hv" }, hg, VALUE[h.troop]);
      el("circle", { cx: n.x + 3.6, cy: n.y + 3.6, r: 1.7, class: "hint-badge" }, hg);
      el("text", { x: n.x + 3.6, y: n.y + 4.4, class: "hl" }, hg, h.letter);
    }
    const hit = el("circle", { cx: n.x, cy: n.y, r: 5.2, class: "hit", "data-node": n.id }, g);
    let title = (n.kind === "hq" ? n.side + " HQ " : n.kind === "special" ? "special base " : "base ") + n.id;
    if (n.description) title += ": " + n.description;
    if (tiles && tiles.length) title += "\nstack (top first): " + tiles.slice().reverse().map((t) => t.colour + " " + t.troop).join(", ");
    el("title", {}, hit, title);
    hit.addEventListener("click", () => {
      if (onInspect) onInspect(n, tiles || []);
      if (onNode) onNode(n.id);
    });
  }
}
function inspect(box, n, tiles) {
  if (!tiles.length && !n.description) { box.hidden = true; return; }
  box.replaceChildren();
  div("", box, (n.kind === "hq" ? n.side + " HQ " : "node ") + n.id + (n.description ? ": " + n.description : ""));
  if (tiles.length) {
    div("note", box, "stack, top first:");
    const row = div("tiles", box);
    for (const t of tiles.slice().reverse()) row.appendChild(tileEl(t.colour, t.troop, { small: true }));
  }
  const close = document.createElement("button");
  close.textContent = "close";
  close.onclick = () => { box.hidden = true; };
  box.appendChild(close);
  box.hidden = false;
}

// One side's panel: rack (face down when unknown), counts, medals, discard.
function drawSide(box, side, tv, who, opts) {
  box.replaceChildren();
  const h = document.createElement("h3");
  h.textContent = who;
  const m = document.createElement("span");
  m.textContent = side.medals + " / " + tv.medals_to_win + " medals";
  h.appendChild(m);
  box.appendChild(h);
  const bar = div("medals", box);
  const fill = div("", bar);
  fill.style.width = Math.min(100, 100 * side.medals / tv.medals_to_win) + "%";
  fill.style.background = side.colour === "blue" ? "var(--blue)" : "var(--red)";
  const rack = div("tiles", box);
  rack.dataset.side = side.colour;
  const frozen = (side.frozen || []).slice();
  side.rack.forEach((troop, i) => {
    const fi = frozen.indexOf(troop);
    const isFrozen = fi >= 0;
    if (isFrozen) frozen.splice(fi, 1);
    const t = tileEl(side.colour, troop, { frozen: isFrozen });
    t.dataset.troop = troop;
    t.dataset.index = i;
    if (opts && opts.onTile) opts.onTile(t, troop, isFrozen);
    rack.appendChild(t);
  });
  for (let i = side.rack.length; i < side.rack_len; i++) rack.appendChild(tileEl(side.colour, null));
  const facts = div("facts", box);
  facts.textContent = "rack " + side.rack_len + (side.frozen_len ? " (" + side.frozen_len + " frozen)" : "") +
    " · reserve " + side.reserve_len + (side.rack_known ? "" : side.rack.length ? " · face up: publicly known tiles" : "");
  const mine = (side.regions || []).filter((r) => r.by === side.colour);
  if (mine.length) div("facts regions", box, "regions taken: " + mine.map((r) => "R" + r.id + " (" + r.medals + " medal" + (r.medals > 1 ? "s" : "") + ", turn " + r.turn + ")").join(", "));
  const d = div("facts", box, "discard: " + (side.discard.length ? "" : "empty"));
  if (side.discard.length) {
    const row = div("tiles", box);
    for (const troop of side.discard) row.appendChild(tileEl(side.colour, troop, { small: true }));
  }
  return d;
}

// ---------- playing ----------
// The server sends {id, view (the human's view), legal (grouped per tile), thinking, stopped, hint}.
async function showGame(g) {
  if (!app.game || app.game.id !== g.id) { $("save-note").textContent = ""; app.hintAll = false; }
  app.game = g;
  $("inspect").hidden = true;
  localStorage.setItem("toybattle-game", g.id);
  $("welcome").hidden = true; $("replay").hidden = true; $("play").hidden = false;
  await terrain(g.view.terrain);
  render();
  if (g.thinking) poll();
  else if (botToMove(g) && !g.stopped && !g.failure) startBot();
}
const botToMove = (g) => g.view.to_move === "bot" || g.view.to_move === "chance";

// The legal decisions, one entry each: {notation, kind, troop, node, to}.
function legalOf(g) {
  if (g.view.to_move !== "human") return [];
  const out = [];
  for (const grp of g.legal) {
    for (const o of grp.options) {
      out.push({
        notation: o.notation, kind: grp.kind, troop: grp.troop || o.troop,
        node: grp.kind === "move" ? grp.from : o.node, to: grp.kind === "move" ? o.node : null,
      });
    }
  }
  return out;
}
function positionOf(hv) {
  return { stacks: hv.nodes.filter((n) => n.stack.length).map((n) => ({ node: n.id, tiles: n.stack })), regions_taken: hv.regions_taken, taken_regions: hv.taken_regions };
}
function humanSide(hv) {
  const c = hv.human;
  return { colour: c, medals: hv.medals[c], rack: hv.rack, rack_len: hv.rack.length, reserve_len: hv.reserve[c], frozen: hv.frozen, frozen_len: hv.frozen.length, rack_known: true, discard: hv.discard[c], regions: hv.taken_regions };
}
function botSide(hv) {
  const c = hv.bot, r = hv.opponent_rack;
  return { colour: c, medals: hv.medals[c], rack: r.known, rack_len: r.count, reserve_len: hv.reserve[c], frozen: [], frozen_len: r.frozen, rack_known: false, discard: hv.discard[c], regions: hv.taken_regions };
}
// Node ids a step's notation names ("place XB-42 13" names 13, "move 14 17" both).
function stepNodes(text) {
  return (text.replace("XB-42", "").match(/\b\d+\b/g) || []).map(Number);
}
// The bot's steps since the human's last decision.
function lastBotSteps(hv) {
  const out = [];
  for (let i = hv.log.length - 1; i >= 0; i--) {
    const e = hv.log[i];
    if (e.actor === hv.human) break;
    if (e.actor === hv.bot) out.unshift(e);
  }
  return out;
}
function resultText(hv) {
  if (!hv.result) return "";
  if (!hv.result.winner) return "Game void: a copy of it (a save loaded again) ended and showed its deal";
  const how = END_WORDS[hv.result.end] || hv.result.end;
  if (hv.result.end === "resign") return "You resigned: the computer wins";
  return (hv.result.winner === hv.human ? "You win" : "The computer wins") + " by " + how;
}
// A hint's candidates in the order a player reads them, as session::hint_order puts them for
// the terminal: those the search tried at least a tenth as often as its most-tried one, best
// chances first; then the rest, most tried first (their chances rest on too few playouts).
function hintOrder(cands) {
  const most = Math.max(0, ...cands.map((c) => c.visits));
  const tried = cands.filter((c) => c.visits * 10 >= most).sort((a, b) => b.value - a.value || b.visits - a.visits);
  const rarely = cands.filter((c) => c.visits * 10 < most).sort((a, b) => b.visits - a.visits);
  return { tried, rarely };
}
const HINT_LETTERS = ["a", "b", "c"];
// Where a hint's decision shows on the board: a placement's tile on its node, a move's
// destination, a discard's or return's node; other decisions are in the list only.
function hintMark(c, i, colour) {
  const m = c.decision.replace("XB-42", "XB42").match(/^(place|move|discard|return) (?:(\S+) )?(\d+)(?: (\d+))?$/);
  if (!m) return null;
  const troop = m[1] === "place" ? m[2].replace("XB42", "XB-42") : null;
  const node = Number(m[4] || m[3]);
  return { node, troop, colour, letter: HINT_LETTERS[i] };
}
// A log step in words: a chance step reads as what it answered ("blue draws (2 to draw): Roxy").
function stepWords(e, human) {
  if (e.actor) return (e.actor === human ? "you" : "computer") + ": " + e.text;
  const outcome = e.text === "chance ?" ? "unseen by you" : e.text.replace(/^chance /, "");
  return e.during + ": " + outcome;
}

function render() {
  const g = app.game, hv = g.view, tv = app.terrains[hv.terrain];
  const legal = legalOf(g);
  const places = legal.filter((d) => d.kind === "place");
  const nodeChoices = legal.filter((d) => ["discard", "return", "move"].includes(d.kind));
  // Which nodes light up: the selected troop's slots, or the nodes of node choices.
  const lit = new Set();
  if (app.selected) places.filter((d) => d.troop === app.selected).forEach((d) => lit.add(d.node));
  if (app.moveFrom !== null) nodeChoices.filter((d) => d.kind === "move" && d.node === app.moveFrom).forEach((d) => lit.add(d.to));
  else nodeChoices.forEach((d) => lit.add(d.node));
  const lastBot = lastBotSteps(hv);
  const last = new Set(lastBot.flatMap((e) => stepNodes(e.text)));
  const order = g.hint ? hintOrder(g.hint.candidates) : null;
  const hints = order ? order.tried.slice(0, 3).map((c, i) => hintMark(c, i, hv.human)).filter((h) => h) : [];
  const flip = (hv.human === "red") !== app.flip;
  drawBoard($("board"), tv, positionOf(hv), { legal: lit, last, hints, flip }, onNodeClick, (n, tiles) => inspect($("inspect"), n, tiles));
  $("btn-flip").textContent = flip ? "Turn the board (red at the bottom now)" : "Turn the board (blue at the bottom now)";

  let status = tv.name + " · you are " + hv.human + " · level " + hv.level + " · turn " + hv.turn + " · ";
  if (hv.to_move === "over") status += resultText(hv);
  else if (hv.to_move === "human") status += "your move: " + hv.phase;
  else status += "the computer's move";
  $("status").textContent = status;

  drawSide($("side-opponent"), botSide(hv), tv, "Computer (" + hv.bot + ", " + hv.level + ")");
  const placeable = new Set(places.map((d) => d.troop));
  drawSide($("side-human"), humanSide(hv), tv, "You (" + hv.human + ")", {
    onTile: (t, troop, frozen) => {
      if (frozen || !placeable.has(troop)) return;
      t.classList.add("playable");
      if (app.selected === troop) t.classList.add("selected");
      t.addEventListener("click", () => { app.selected = app.selected === troop ? null : troop; app.moveFrom = null; render(); });
    },
  });
  drawChoices(legal);

  const busy = !!g.thinking;
  const u = $("btn-undo");
  u.disabled = !hv.undo.available || busy;
  u.title = hv.undo.reason || "take back your last decision";
  // The reason is news only once there is something undo could take back, and while the game goes on.
  const decided = hv.log.some((e) => e.actor === hv.human);
  $("undo-reason").textContent = hv.undo.available || !decided || hv.to_move === "over" ? "" : "Undo: " + (hv.undo.reason || "not possible now");
  $("btn-hint").disabled = hv.to_move !== "human" || busy;
  $("btn-resign").disabled = hv.to_move === "over" || busy;
  $("btn-save").disabled = busy;
  $("btn-download").hidden = hv.to_move !== "over";
  $("btn-download").href = "/api/games/" + g.id + "/record";
  // Empty: the browser takes the file name the server gives (terrain, date, level, turn).
  $("btn-download").setAttribute("download", "");
  $("btn-watch").hidden = hv.to_move !== "over";
  $("btn-review").hidden = hv.to_move !== "over";
  $("btn-review-mine").hidden = hv.to_move === "over" || !decided;
  $("btn-continue").hidden = !(botToMove(g) && !busy && (g.stopped || g.failure));

  $("thinking").hidden = !busy;
  if (busy) {
    const s = (g.thinking.elapsed_ms / 1000).toFixed(1);
    const moves = g.thinking.so_far.filter((e) => e.actor === hv.bot).map((e) => e.text);
    $("thinking-text").textContent = g.thinking.hint
      ? (g.thinking.queued ? "The hint waits for a free core (other games are thinking)… " : "Thinking about a hint… ") + s + " s"
      : g.thinking.queued
      ? "The computer waits for a free core (other games are thinking)… " + s + " s"
      : "The computer is thinking… " + s + " s" + (moves.length ? " (so far: " + moves.join(", ") + ")" : "");
    const bar = $("thinking-bar");
    if (g.thinking.expected_ms && !g.thinking.queued) { bar.max = g.thinking.expected_ms; bar.value = Math.min(g.thinking.elapsed_ms, g.thinking.expected_ms); }
    else bar.removeAttribute("value");
  }
  $("last-move").textContent = g.failure ? "The computer could not move: " + g.failure
    : g.stopped ? "You stopped the computer's thinking."
    : lastBot.length ? "Computer played: " + lastBot.map((e) => e.text).join(", ") : "";
  drawHint(order, g.hint);
  drawGraph(hv.win_history);
  drawThoughts(hv.bot_thoughts);
  const log = $("log");
  log.replaceChildren();
  let turn = 0;
  for (const e of hv.log) {
    if (e.turn !== turn) {
      turn = e.turn;
      const head = document.createElement("li");
      head.className = "turn-head";
      head.textContent = "Turn " + turn;
      log.appendChild(head);
    }
    const li = document.createElement("li");
    li.textContent = stepWords(e, hv.human);
    li.title = e.during;
    log.appendChild(li);
  }
}

function drawChoices(legal) {
  const box = $("choices");
  box.replaceChildren();
  const others = legal.filter((d) => d.kind !== "place" && d.kind !== "move");
  const places = legal.filter((d) => d.kind === "place");
  const moves = legal.filter((d) => d.kind === "move");
  if (!legal.length) return;
  const p = div("prompt", box, app.game.view.phase);
  if (places.length) p.textContent += " — pick a tile of your rack, then a lit node";
  if (moves.length) p.textContent += app.moveFrom === null ? " — click the enemy tile to move" : " — click where it goes";
  for (const d of others) {
    const b = document.createElement("button");
    b.textContent = words(d);
    b.dataset.decision = d.notation;
    b.className = d.kind === "draw" ? "primary" : "";
    b.onclick = () => decide(d.notation);
    box.appendChild(b);
  }
}
function words(d) {
  switch (d.kind) {
    case "draw": return "Draw";
    case "decline": return "Decline";
    case "use": return "Use the effect";
    case "discard": return "Discard the top tile of " + d.node;
    case "return": return "Return your tile on " + d.node + " to your rack";
    case "recover": return "Recover " + d.troop + " from the discard";
    default: return d.notation;
  }
}
function onNodeClick(id) {
  const legal = legalOf(app.game);
  if (app.selected) {
    const d = legal.find((x) => x.kind === "place" && x.troop === app.selected && x.node === id);
    if (d) return decide(d.notation);
  }
  const moves = legal.filter((d) => d.kind === "move");
  if (moves.length) {
    if (app.moveFrom !== null) {
      const d = moves.find((x) => x.node === app.moveFrom && x.to === id);
      if (d) return decide(d.notation);
    }
    if (moves.some((x) => x.node === id)) { app.moveFrom = id; return render(); }
  }
  const single = legal.filter((d) => ["discard", "return"].includes(d.kind) && d.node === id);
  if (single.length === 1) return decide(single[0].notation);
}
async function decide(notation) {
  app.selected = null; app.moveFrom = null;
  try { showError(null); await showGame(await api("POST", "/api/games/" + app.game.id + "/decision", { decision: notation })); }
  catch (e) { showError(e); render(); }
}
async function startBot() {
  try { app.game = await api("POST", "/api/games/" + app.game.id + "/bot"); render(); poll(); }
  catch (e) { showError(e); }
}
async function poll() {
  if (app.polling) return;
  app.polling = true;
  try {
    while (app.game && (app.game.thinking || app.hinting)) {
      await new Promise((r) => setTimeout(r, 150));
      app.game = await api("GET", "/api/games/" + app.game.id);
      render();
    }
  } catch (e) { showError(e); }
  app.polling = false;
  if (botToMove(app.game) && !app.game.thinking && !app.game.stopped && !app.game.failure) startBot();
  else render();
}
// The hint: its top few (also drawn on the board, lettered), the rest on request.
function drawHint(order, hint) {
  const box = $("hint");
  box.replaceChildren();
  if (!order) return;
  const now = hint.win == null ? "" : " Your chances now: " + (100 * hint.win).toFixed(1) + "%.";
  div("note", box, "Hint (" + hint.iterations + " iterations from what you can see): the search's main candidates, your best chances first; the lettered ones are drawn on the board." + now);
  const top = order.tried.slice(0, 3).map((c, i) => ({ text: HINT_LETTERS[i] + ") " + c.decision, visits: c.visits, win: c.value }));
  drawCandidates(box, top, null, true);
  const rest = order.tried.slice(3).concat(order.rarely);
  if (!rest.length) return;
  const more = document.createElement("details");
  more.open = app.hintAll;
  more.ontoggle = () => { app.hintAll = more.open; };
  const sum = document.createElement("summary");
  sum.textContent = "All " + (top.length + rest.length) + " candidates";
  more.appendChild(sum);
  box.appendChild(more);
  const rows = order.tried.slice(3).map((c) => ({ text: c.decision, visits: c.visits, win: c.value }));
  drawCandidates(more, rows, null, true);
  if (order.rarely.length) drawCandidates(more, order.rarely.map((c) => ({ text: c.decision, visits: c.visits, win: c.value })), "Tried too rarely for their chances to mean much:", true);
}
function drawCandidates(box, cands, caption, keep) {
  if (!keep) box.replaceChildren();
  if (!cands || !cands.length) return;
  if (caption) div("note", box, caption);
  const t = document.createElement("table");
  t.className = "cands";
  t.innerHTML = "<tr><th>decision</th><th>visits</th><th>chances</th></tr>";
  for (const c of cands) {
    const tr = document.createElement("tr");
    for (const x of [c.text, c.visits, (100 * c.win).toFixed(1) + "%"]) { const td = document.createElement("td"); td.textContent = x; tr.appendChild(td); }
    t.appendChild(tr);
  }
  box.appendChild(t);
}
// The server sends the computer's candidates only once the game is over (they name its tiles).
function drawThoughts(thoughts) {
  const box = $("thoughts");
  box.replaceChildren();
  $("thoughts-box").hidden = !thoughts.length;
  for (const t of thoughts) {
    const one = div("thought", box, "");
    const cands = t.candidates.map((c) => ({ text: c.decision, visits: c.visits, win: c.win }));
    const head = "Step " + t.step + ": the computer played " + t.decision;
    if (cands.length) drawCandidates(one, cands, head + " (" + t.iterations + " iterations; win = its chances)");
    else div("note", one, head + " (no search)");
  }
}
// The win-probability graph: your chances (0-100%) against the turn, with its axes; one point
// per turn start (and the end), from the server's one estimate of your observation.
function drawGraph(history) {
  const svg = $("graph");
  svg.replaceChildren();
  const W = 300, H = 120, left = 28, right = 8, top = 8, bottom = 20;
  const y = (p) => top + (1 - p) * (H - top - bottom);
  const n = history ? history.length : 0;
  const x = (i) => left + (n > 1 ? i / (n - 1) : 0) * (W - left - right);
  for (const p of [0, 0.5, 1]) {
    el("line", { x1: left, y1: y(p), x2: W - right, y2: y(p), stroke: p === 0.5 ? "#bbb" : "#ddd", "stroke-dasharray": p === 0.5 ? "3 3" : "", "stroke-width": 1 }, svg);
    el("text", { x: left - 4, y: y(p) + 3, "text-anchor": "end", "font-size": 9, fill: "#555" }, svg, (100 * p) + "%");
  }
  el("text", { x: W - right, y: H - 2, "text-anchor": "end", "font-size": 9, fill: "#555" }, svg, "turn");
  if (!n) return;
  // Turn labels: about six, at the points where a turn starts.
  const every = Math.max(1, Math.ceil(n / 6));
  history.forEach((p, i) => {
    if (i % every && i !== n - 1) return;
    el("text", { x: x(i), y: H - 6, "text-anchor": "middle", "font-size": 9, fill: "#555" }, svg, String(p.turn));
  });
  const xy = history.map((p, i) => x(i).toFixed(1) + "," + y(p.human).toFixed(1));
  if (n === 1) xy.push((W - right) + "," + y(history[0].human).toFixed(1));
  el("polyline", { points: xy.join(" "), fill: "none", stroke: "#19a35b", "stroke-width": 2 }, svg);
  const last = history[n - 1];
  el("circle", { cx: x(n - 1), cy: y(last.human), r: 3, fill: "#19a35b" }, svg);
  $("graph-now").textContent = (100 * last.human).toFixed(0) + "% now";
}

// ---------- buttons and dialogs ----------
async function fillNewDialog() {
  if (!app.meta) app.meta = await api("GET", "/api/meta");
  const st = $("sel-terrain"), sl = $("sel-level");
  if (!st.options.length) {
    for (const t of app.meta.terrains) st.add(new Option(t.name, t.key));
    for (const l of app.meta.levels) sl.add(new Option(l.name, l.name));
    sl.value = "casual";
    sl.onchange = () => levelWords(sl.value);
  }
  levelWords(sl.value);
}
// The chosen level in a player's words, its technical description on hover.
function levelWords(name) {
  const l = app.meta.levels.find((x) => x.name === name);
  $("level-words").textContent = name + ": " + (LEVEL_WORDS[name] || "");
  $("level-words").title = l ? l.description : "";
}
async function newGame() {
  try { await fillNewDialog(); $("dlg-new").showModal(); } catch (e) { showError(e); }
}
$("form-new").addEventListener("submit", async (ev) => {
  if (ev.submitter && ev.submitter.value !== "ok") return;
  const f = new FormData($("form-new"));
  const body = { terrain: f.get("terrain"), variant: f.get("variant"), level: f.get("level"), seat: f.get("seat"), first: f.get("first") };
  // As text: a JavaScript number keeps only 53 bits of a 64-bit seed.
  if (f.get("seed").trim()) body.seed = f.get("seed").trim();
  try { showError(null); await showGame(await api("POST", "/api/games", body)); } catch (e) { showError(e); }
});
$("btn-new").onclick = newGame;
$("btn-new2").onclick = newGame;
$("btn-continue").onclick = () => startBot();
$("btn-cancel").onclick = async () => { try { app.game = await api("POST", "/api/games/" + app.game.id + "/cancel"); render(); } catch (e) { showError(e); } };
// A hint is thinking, as the computer's turn is: polled while its request waits, it shows in the
// thinking bar and "Stop thinking" cancels it.
$("btn-hint").onclick = async () => {
  $("hint").textContent = "thinking about a hint…";
  app.hinting = true;
  poll();
  try { app.game = await api("POST", "/api/games/" + app.game.id + "/hint"); } catch (e) { showError(e); $("hint").textContent = ""; }
  app.hinting = false;
  render();
};
$("btn-undo").onclick = async () => { try { showError(null); await showGame(await api("POST", "/api/games/" + app.game.id + "/undo")); } catch (e) { showError(e); } };
$("btn-resign").onclick = async () => {
  if (!confirm("Resign this game?")) return;
  try { await showGame(await api("POST", "/api/games/" + app.game.id + "/resign")); } catch (e) { showError(e); }
};
$("btn-save").onclick = async () => {
  try { const r = await api("POST", "/api/games/" + app.game.id + "/save"); $("save-note").textContent = "Saved on the server as " + r.name + " (Load lists it)."; } catch (e) { showError(e); }
};
$("btn-flip").onclick = () => { app.flip = !app.flip; render(); };
$("rp-flip").onclick = () => { app.replayFlip = !app.replayFlip; replayTo(app.replayAt); };
$("btn-load").onclick = async () => {
  try {
    const saves = await api("GET", "/api/saves");
    const ul = $("saves");
    ul.replaceChildren();
    if (!saves.length) ul.textContent = "No saved games yet.";
    for (const s of saves) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.textContent = s.playable ? "Resume" : "Cannot resume";
      b.disabled = !s.playable;
      b.onclick = async (ev) => {
        ev.preventDefault();
        try { $("dlg-load").close(); await showGame(await api("POST", "/api/saves/" + encodeURIComponent(s.name) + "/load")); } catch (e) { showError(e); }
      };
      const del = document.createElement("button");
      del.textContent = "Delete";
      del.className = "save-delete";
      del.onclick = async (ev) => {
        ev.preventDefault();
        if (!confirm("Delete the save " + s.description + "?")) return;
        try { await api("DELETE", "/api/saves/" + encodeURIComponent(s.name)); li.remove(); } catch (e) { showError(e); }
      };
      li.append(b, " ", del, " " + s.description);
      ul.appendChild(li);
    }
    $("dlg-load").showModal();
  } catch (e) { showError(e); }
};

// ---------- replay viewer ----------
$("btn-replay").onclick = () => { $("replay-error").hidden = true; $("dlg-replay").showModal(); };
$("replay-file").addEventListener("change", async () => {
  const file = $("replay-file").files[0];
  if (!file) return;
  try {
    const text = await file.text();
    await openReplay(await api("POST", "/api/replay", text), text);
    $("dlg-replay").close();
  } catch (e) {
    $("replay-error").textContent = e.message;
    $("replay-error").hidden = false;
  }
  $("replay-file").value = "";
});
$("btn-watch").onclick = async () => {
  try {
    const rec = await apiText("GET", "/api/games/" + app.game.id + "/record");
    await openReplay(await api("POST", "/api/replay", rec), rec);
  } catch (e) { showError(e); }
};
async function openReplay(r, text) {
  // r.terrain is not kept with the terrains of played games: a what-if's objective is the record's own.
  app.replay = r;
  app.replayText = text;
  $("from-here").hidden = !r.face_up;
  const fl = $("fh-level");
  if (!fl.options.length) for (const l of app.meta.levels) fl.add(new Option(l.name, l.name));
  $("welcome").hidden = true; $("play").hidden = true; $("replay").hidden = false;
  window.scrollTo(0, 0);
  const how = END_WORDS[r.result.end] || r.result.end;
  const who = r.result.end === "unfinished" ? "not finished (racks face down)"
    : r.result.winner ? r.result.winner + " wins by " + how : "no winner (" + r.result.end + ")";
  $("replay-title").textContent = r.terrain.name + " (" + r.variant + "), seed " + r.seed + ": blue " + r.players[0] + " vs red " + r.players[1] + " — " + who + " after " + r.result.turns + " turns";
  $("replay-rules").textContent = "Rules: " + r.rules;
  $("rp-slider").max = r.steps.length;
  const ol = $("replay-steps");
  ol.replaceChildren();
  r.steps.forEach((s, i) => {
    const li = document.createElement("li");
    // A chance step's notation already starts with "chance" ("chance Roxy"): show it once.
    li.textContent = s.by + ": " + (s.by === "chance" ? s.text.replace(/^chance /, "") : s.text);
    li.onclick = () => replayTo(i + 1);
    ol.appendChild(li);
  });
  replayTo(0);
}
function replayTo(i) {
  const r = app.replay;
  i = Math.max(0, Math.min(r.steps.length, i));
  app.replayAt = i;
  $("rp-slider").value = i;
  const pos = r.positions[i];
  const last = new Set(i > 0 ? r.steps[i - 1].nodes : []);
  drawBoard($("replay-board"), r.terrain, pos, { last, pending: pos.effect_node, flip: app.replayFlip }, null, (n, tiles) => inspect($("replay-inspect"), n, tiles));
  const step = i > 0 ? r.steps[i - 1] : null;
  const stepText = step ? " (" + step.by + ": " + (step.by === "chance" ? step.text.replace(/^chance /, "") : step.text) + ")" : "";
  $("replay-status").textContent = "step " + i + " of " + r.steps.length + stepText + " · " + pos.phase;
  const sides = $("replay-sides");
  sides.replaceChildren();
  for (const s of pos.sides) {
    const side = { ...s, rack_known: r.face_up, frozen: s.frozen || [], regions: pos.taken_regions };
    drawSide(div("side", sides), side, r.terrain, s.colour + " (" + r.players[s.colour === "blue" ? 0 : 1] + ")");
  }
  $("btn-from-here").disabled = pos.phase_kind === "over";
  $("btn-from-here").textContent = pos.phase_kind === "over" ? "Play from here (the game is over at this step)" : "Play from step " + i;
  [...$("replay-steps").children].forEach((li, k) => li.classList.toggle("current", k === i - 1));
  const cur = $("replay-steps").children[i - 1];
  if (cur) cur.scrollIntoView({ block: "nearest" });
  reviewAt(i); // review.js: what the review says of this step
}
$("from-here").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const f = new FormData($("from-here"));
  const body = { record: app.replayText, step: app.replayAt, level: f.get("level"), seat: f.get("seat") };
  try { showError(null); app.flip = false; await showGame(await api("POST", "/api/replay/play", body)); window.scrollTo(0, 0); } catch (e) { showError(e); }
});
$("rp-slider").oninput = () => replayTo(Number($("rp-slider").value));
$("rp-first").onclick = () => replayTo(0);
$("rp-prev").onclick = () => replayTo(app.replayAt - 1);
$("rp-next").onclick = () => replayTo(app.replayAt + 1);
$("rp-last").onclick = () => replayTo(app.replay.steps.length);
document.addEventListener("keydown", (e) => {
  if ($("replay").hidden || !app.replay) return;
  if (e.key === "ArrowRight") replayTo(app.replayAt + 1);
  if (e.key === "ArrowLeft") replayTo(app.replayAt - 1);
});

// ---------- start ----------
(async function start() {
  try {
    app.meta = await api("GET", "/api/meta");
    $("levels-text").textContent = "Levels: " + app.meta.levels.map((l) => l.name + " (" + l.description + ")").join("; ");
    $("ladder-text").textContent = app.meta.ladder;
    const id = localStorage.getItem("toybattle-game");
    if (id) {
      try { await showGame(await api("GET", "/api/games/" + id)); } catch (e) { localStorage.removeItem("toybattle-game"); }
    }
  } catch (e) { showError(e); }
})();
