// Dehla in the browser. The page draws what the server sends (the person's view) and
// posts the person's moves; it holds no rules. While a bot is to act it asks the
// server to advance, one move at a time (the server waits the bot delay).
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k === "style") node.setAttribute("style", v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
};

const app = {
  meta: null,
  state: null,
  driving: false,
  sending: false,
  typed: "",
  lastStatus: null,
  toastTimer: null,
};
window.dehla = app; // for tests and the curious: app.state is what the server sent

// ------------------------------------------------------------------ server
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data;
  try { data = await res.json(); } catch (_) { data = { error: `HTTP ${res.status}` }; }
  if (!res.ok) {
    const err = new Error(data.error || `HTTP ${res.status}`);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

function gamePath(suffix = "") { return `/api/games/${encodeURIComponent(app.state.id)}${suffix}`; }

function setState(s) {
  app.state = s;
  if (location.hash !== `#${s.id}`) history.replaceState(null, "", `#${s.id}`);
  render();
  drive();
}

async function drive() {
  if (app.driving) return;
  app.driving = true;
  try {
    while (app.state && app.state.status === "bot") {
      const s = await api("POST", gamePath("/advance"), { version: app.state.version });
      app.state = s;
      render();
    }
  } catch (e) {
    fail(e);
  } finally {
    app.driving = false;
  }
}

async function sendMove(move) {
  if (!app.state || app.sending) return;
  app.sending = true;
  try {
    setState(await api("POST", gamePath("/move"), { move, seat: app.state.seat, version: app.state.version }));
    $("#toast").hidden = true;
  } catch (e) {
    fail(e);
  } finally {
    app.sending = false;
  }
}
app.sendMove = sendMove;

async function dealNext() {
  if (!app.state || app.state.status !== "hand-over" || app.sending) return;
  app.sending = true;
  try { setState(await api("POST", gamePath("/deal"))); } catch (e) { fail(e); } finally { app.sending = false; }
}

function fail(e) {
  showToast(e.message || String(e));
  if (e.status === 404) {
    app.state = null;
    history.replaceState(null, "", location.pathname);
    showSetup(e.message);
  } else if (e.status === 409 && e.data && e.data.stale && app.state) {
    // a stale page: fetch the table as it is
    api("GET", gamePath()).then((s) => { app.state = s; render(); drive(); }).catch(() => {});
  }
}

// "R0.4" in a message becomes a link to that rule in the rule book (text nodes only, never markup)
const RULE_REF = /\bR(\d)(?:\.(\d+))?([a-d])?\b/g;
function ruleAnchor(major, minor) { return minor ? `r${major}-${minor}` : `r${major}`; }
function withRuleLinks(text) {
  const parts = [];
  let pos = 0;
  for (const m of text.matchAll(RULE_REF)) {
    parts.push(text.slice(pos, m.index));
    parts.push(el("a", { href: rulesHref(ruleAnchor(m[1], m[2])), text: m[0], title: "Read this rule" }));
    pos = m.index + m[0].length;
  }
  parts.push(text.slice(pos));
  return parts;
}
// the rule book, with the way back to the game being played
function rulesHref(anchor = "") {
  const back = app.state ? `?game=${encodeURIComponent(app.state.id)}` : "";
  return `/rules${back}${anchor ? `#${anchor}` : ""}`;
}
function updateRulesLinks() {
  $("#btn-rules").href = rulesHref();
  const name = $("#f-rules").value;
  const ruleset = app.meta && app.meta.rulesets[name];
  $("#f-rules-link").href = rulesHref(ruleset ? ruleset.section : "");
}

function showToast(text) {
  const t = $("#toast");
  t.replaceChildren(...withRuleLinks(text));
  t.hidden = false;
  clearTimeout(app.toastTimer);
  app.toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

// ------------------------------------------------------------------ setup form
function showSetup(error) {
  document.body.dataset.state = "setup";
  $("#game").hidden = true;
  $("#setup").hidden = false;
  $("#game-title").textContent = "";
  $("#setup-error").textContent = error || "";
  $("#f-start").disabled = false;
  updateRulesLinks();
}

function buildOptions() {
  const name = $("#f-rules").value;
  const ruleset = app.meta.rulesets[name];
  const specs = ruleset.options;
  $("#f-rules-text").textContent = ruleset.description || "";
  updateRulesLinks();
  const box = $("#f-options");
  box.replaceChildren(el("legend", { text: "Options" }));
  for (const [key, spec] of Object.entries(specs)) {
    // every option says what it does under it; a choice also says what the chosen value means
    const id = `opt-${key}`;
    const label = spec.label || key.replace(/_/g, " ");
    const choiceText = el("span", { class: "choice" });
    const help = el("small", { class: "help", id: `${id}-help` }, spec.help || "", choiceText);
    let input;
    if (spec.kind === "bool") {
      input = el("input", { type: "checkbox", id, name: key, checked: spec.default === true, "aria-describedby": help.id });
      box.append(el("div", { class: "field check", dataset: { option: key } }, el("label", {}, input, label), help));
      continue;
    }
    if (spec.choices) {
      input = el("select", { id, name: key, "aria-describedby": help.id },
        spec.choices.map((c) => el("option", { value: String(c), text: String(c), selected: c === spec.default })));
      const showChoice = () => { choiceText.textContent = (spec.choice_help || {})[input.value] || ""; };
      input.addEventListener("change", showChoice);
      showChoice();
    } else if (spec.kind === "int") {
      input = el("input", { type: "number", id, name: key, min: spec.minimum ?? null, value: spec.default ?? "", inputmode: "numeric",
        placeholder: spec.nullable ? "none" : null, "aria-describedby": help.id });
    } else {
      input = el("input", { id, name: key, value: spec.default ?? "", "aria-describedby": help.id });
    }
    input.dataset.kind = spec.kind;
    box.append(el("div", { class: "field", dataset: { option: key } }, el("label", { for: id, text: label }), input, help));
  }
  box.querySelectorAll("[name=players]").forEach((i) => i.addEventListener("change", buildSeats));
  box.onchange = buildAgentList; // an option may change the default bot and the ladder
  buildSeats();
  buildAgentList();
}

function formBots() {
  // the default bot and the bots by measured strength of the rules and options in the form (none: hard)
  const name = $("#f-rules").value;
  const opts = formOptions();
  const hit = (app.meta.bots_by_rules || []).find((d) => d.rules === name && Object.entries(d.options).every(([k, v]) => opts[k] === v));
  return hit || { default_bot: "hard", bots: [] };
}

function bestBot() {
  return formBots().default_bot;
}

function setDefaultBots() {
  // a bot field left at its default follows the rules in the form
  const best = bestBot();
  for (const input of document.querySelectorAll("input[data-default-bot]")) {
    if (!input.value.trim() || input.value.trim() === input.dataset.defaultBot) input.value = best;
    input.dataset.defaultBot = best;
    if ($(`#${input.id}-help`)) agentHelp(input);
  }
}

function buildAgentList() {
  // the ruleset's bots by measured strength (the benchmark's ladder), strongest first, then the other suggestions
  const ranked = formBots().bots;
  const lines = app.meta.agent_help || {};
  const rest = app.meta.agents.filter((a) => !ranked.some((b) => b.spec === a));
  $("#agent-list").replaceChildren(...ranked.map((b) => el("option", { value: b.spec, label: b.line })),
    ...rest.map((a) => el("option", { value: a, label: lines[a] || null })));
  const list = $("#bot-ranking");
  if (list) list.replaceChildren(...ranked.map((b) => el("li", {}, el("code", { text: b.spec }), ` ${b.line}`)));
  setDefaultBots();
}

function agentHelp(input) {
  // what the chosen bot is, in a line, for the names offered; any other spec is taken as typed
  const spec = input.value.trim();
  const known = (app.meta && app.meta.agent_help) || {};
  const text = !spec ? "Pick a bot from the list."
    : known[spec] ? known[spec]
      : `${spec.split(":")[0]}: ${known[spec.split(":")[0]] || "an agent spec, checked when you deal"}`;
  $(`#${input.id}-help`).textContent = text;
}

function buildSeats() {
  const players = Number(($("#f-options [name=players]") || { value: 4 }).value);
  const seat = $("#f-seat");
  const old = seat.value;
  const mates = (s) => Array.from({ length: players }, (_, t) => t).filter((t) => t % 2 === s % 2 && t !== s).join(" and ");
  seat.replaceChildren(...Array.from({ length: players }, (_, s) => el("option", { value: String(s), text: `Seat ${s}, partner${players > 4 ? "s" : ""} at ${mates(s)}` })));
  if (old && Number(old) < players) seat.value = old;
}

function formOptions() {
  const name = $("#f-rules").value;
  const specs = app.meta.rulesets[name].options;
  const out = {};
  for (const [key, spec] of Object.entries(specs)) {
    const input = $(`#f-options [name="${key}"]`);
    if (!input) continue;
    if (spec.kind === "bool") out[key] = input.checked;
    else if (spec.kind === "int") {
      if (input.value === "") { if (spec.nullable) out[key] = null; continue; }
      out[key] = Number(input.value);
    } else out[key] = input.value;
  }
  return out;
}

async function startGame(ev) {
  ev.preventDefault();
  $("#f-start").disabled = true;
  $("#setup-error").textContent = "";
  const seed = $("#f-seed").value;
  const body = {
    rules: $("#f-rules").value,
    options: formOptions(),
    seat: Number($("#f-seat").value),
    partner: $("#f-partner").value.trim(),
    opponents: $("#f-opponents").value.trim(),
    seed: seed === "" ? null : Number(seed),
    bot_delay: Number($("#f-speed").value),
  };
  try {
    const s = await api("POST", "/api/games", body);
    $("#setup").hidden = true;
    $("#game").hidden = false;
    app.lastStatus = null;
    setState(s);
  } catch (e) {
    $("#setup-error").textContent = e.message;
    $("#f-start").disabled = false;
  }
}

async function newGame() {
  const s = app.state;
  if (s && !s.ended && !confirm("Leave this game? It is saved as an unfinished record.")) return;
  if (s) { try { await api("POST", gamePath("/leave")); } catch (_) { /* gone already */ } }
  app.state = null;
  history.replaceState(null, "", location.pathname);
  showSetup();
}

// ------------------------------------------------------------------ drawing
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

function cardFace(c, tag = "div", attrs = {}) {
  const scoring = app.state && app.state.panels.tens;
  const cls = ["card", c.red ? "red" : "black", c.ten ? "ten" : "", c.ten && scoring ? "scoring" : "", attrs.class || ""].join(" ").trim();
  return el(tag, { ...attrs, class: cls, "aria-label": attrs["aria-label"] || `${c.rank === "10" ? "ten" : c.rank} of ${SUIT_NAME[c.suit]}` },
    el("span", { class: "corner", "aria-hidden": "true" }, c.rank, el("span", { class: "s", text: c.symbol })),
    el("span", { class: "pip", "aria-hidden": "true", text: c.symbol }),
    el("span", { class: "corner br", "aria-hidden": "true" }, c.rank, el("span", { class: "s", text: c.symbol })));
}

function seatName(seat) { return app.state.seats[seat].name; }

function render() {
  const s = app.state;
  if (!s) return;
  const status = s.status;
  document.body.dataset.state = status;
  document.body.dataset.version = String(s.version);
  $("#setup").hidden = true;
  $("#game").hidden = false;
  const specs = app.meta ? app.meta.rulesets[s.rules.name].options : {};
  const opts = Object.entries(s.rules.options).map(([k, v]) => `${((specs[k] || {}).label || k.replace(/_/g, " ")).toLowerCase()}: ${v === null ? "none" : v}`).join(", ");
  $("#game-title").textContent = `${app.meta ? app.meta.rulesets[s.rules.name].title : s.rules.name} · ${opts} · hand ${s.hand_no}`;
  $("#table").className = `table players-${s.players}`;
  updateRulesLinks();
  const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  renderSeats(s);
  renderTrick(s);
  renderPrompt(s);
  renderActions(s);
  renderHand(s);
  renderScore(s);
  renderTrump(s);
  renderMiddle(s);
  renderBids(s);
  renderLog(s);
  restoreFocus(focusKey, status);
  app.lastStatus = status;
}

function renderSeats(s) {
  // each seat sits in the table grid's area for its place (0 you, 1 on your right, ...)
  const box = $("#seats");
  box.replaceChildren(...s.seats.map((seat) => {
    const us = seat.side === s.side;
    const chips = [];
    if (seat.dealer) chips.push(el("span", { class: "chip dealer", title: "Dealer", text: "Dealer" }));
    if (seat.trump_maker && s.trump.state !== "drawn") chips.push(el("span", { class: "chip maker", title: "Made trump", text: s.trump.symbol ? `Trump ${s.trump.symbol}` : "Trump ?" }));
    if (seat.bid) chips.push(el("span", { class: "chip bid", text: seat.bid }));
    if (seat.to_act) chips.push(el("span", { class: "chip turn", text: seat.role === "you" ? "Your turn" : seat.agent === "person" ? "To play" : "Thinking…" }));
    const trickText = plural(seat.tricks, "trick");
    if (seat.role === "you") chips.push(el("span", { class: "chip", title: "Tricks you won this hand", text: trickText }));
    const backs = seat.role === "you" ? null
      : el("div", { class: "backs", title: `${seat.cards} cards` },
        Array.from({ length: Math.min(seat.cards, 13) }, () => el("span", { class: "back", "aria-hidden": "true" })),
        el("span", { class: "count", text: `${seat.cards ? plural(seat.cards, "card") : "no cards"} · ${trickText}` }));
    return el("div", {
      class: `seat place-${seat.place} ${us ? "we" : "they"}${seat.to_act ? " to-act" : ""}`,
      id: `seat-${seat.seat}`,
      dataset: { seat: String(seat.seat) },
    },
    el("div", { class: "name" }, el("span", { class: "side-dot", title: us ? "Your side" : "Opponents" }),
      seat.role === "you" ? "You" : seat.name,
      el("span", { class: "agent", text: seat.role === "you" ? `seat\u00a0${seat.seat}` : seat.name.startsWith("Seat") ? seat.agent : `${seat.agent} · seat\u00a0${seat.seat}` })),
    backs,
    el("div", { class: "chips" }, chips));
  }));
}

function renderTrick(s) {
  const center = $("#center");
  const caption = $("#trick-caption");
  let plays = s.trick.plays;
  let winner = s.trick.winning;
  let last = false;
  if (!plays.length && s.last_trick) {
    plays = s.last_trick.plays;
    winner = s.last_trick.winner;
    last = true;
  }
  center.className = `center${last ? " last" : ""}`;
  center.replaceChildren(...plays.map((p) => {
    const place = s.seats[p.seat].place; // the card lies on the side of the seat that played it
    const win = p.seat === winner;
    return el("div", { class: `played place-${place}${win ? " winning" : ""}`, dataset: { seat: String(p.seat) } },
      cardFace(p.card, "div", { "aria-label": `${seatName(p.seat)}: ${p.card.rank}${p.card.symbol}` }),
      null);
  }));
  const total = s.players === 6 ? 26 : 13;
  let head = "", sub = "";
  if (s.trick.plays.length) {
    head = `Trick ${s.trick.number} of ${total}`;
    sub = `${seatName(s.trick.winning)} winning`;
  } else if (last) {
    head = `Trick ${s.last_trick.number}`;
    sub = `won by ${seatName(s.last_trick.winner)}`;
  } else if (s.phase === "bid") head = "Bidding";
  else if (s.phase === "trump") head = "Making trump";
  else if (s.phase === "play") { head = `Trick ${s.trick.number} of ${total}`; sub = `${seatName(s.to_act)} to lead`; }
  caption.replaceChildren(el("b", { text: head }), sub);
}

function renderPrompt(s) {
  let text = s.prompt;
  if (s.status === "hand-over" || s.status === "match-over") {
    const r = s.result;
    if (r) text = r.hand_winner === null ? "Hand over: no winner." : `Hand over: ${sideName(s, r.hand_winner, "inline")} win the hand.`;
  }
  $("#prompt").textContent = text;
  $("#typed").textContent = app.typed ? `typed: ${app.typed}` : "";
}

function actionButton(a) {
  return el("button", {
    type: "button", class: `${a.red ? "red" : ""} ${a.kind}`.trim(), disabled: !a.legal || null,
    dataset: { key: `act:${a.move}`, move: a.move },
    title: a.legal ? a.move : `${a.move}: not allowed now`,
    onclick: () => sendMove(a.move),
  }, a.label);
}

function renderActions(s) {
  const box = $("#actions");
  const decision = $("#decision");
  const parts = [];
  let bidPanel = null;
  if (s.status === "your-turn" && s.actions.length) {
    const pass = s.actions.filter((a) => a.kind === "pass").map(actionButton);
    const bids = s.actions.filter((a) => a.kind === "bid");
    const suits = s.actions.filter((a) => a.kind === "trump").map((a) => actionButton(a));
    parts.push(...suits.map((b) => { b.classList.add("wide"); return b; }));
    if (bids.length) {
      // the bidding has the table's centre to itself (no trick yet): rows are suits, columns 7..13 tricks
      const grid = el("div", { class: "bid-grid", role: "group", "aria-label": "Bids" });
      for (const suit of ["S", "H", "C", "D"]) for (const a of bids.filter((b) => b.move.endsWith(suit))) grid.append(actionButton(a));
      bidPanel = el("div", { class: "decision-panel" }, el("div", { class: "decision-title", text: "Your bid" }), grid,
        el("div", { class: "decision-row" }, pass.map((b) => { b.classList.add("wide"); return b; })));
    } else parts.push(...pass);
  } else if (s.status === "hand-over" || s.status === "match-over") {
    parts.push(resultBox(s));
  }
  box.replaceChildren(...parts);
  decision.replaceChildren(...(bidPanel ? [bidPanel] : []));
  decision.hidden = !bidPanel;
  $("#trick-caption").hidden = Boolean(bidPanel);
}

function resultBox(s) {
  const r = s.result;
  const us = s.side, them = 1 - s.side;
  const p = s.panels;
  const bits = [`tricks ${r.tricks[us]}-${r.tricks[them]}`];
  if (p.tens) bits.push(`tens ${r.tens[us]}-${r.tens[them]}`);
  if (p.points) bits.push(`points ${r.points[us]}-${r.points[them]}`);
  if (p.kots) bits.push(`kots ${r.kots[us]}-${r.kots[them]}`);
  const watching = s.seat === null;
  // who won the hand and by which rule (R1.6 at two tens each is not a win on tricks)
  let hand = r.hand_winner === null ? `No winner this hand: ${r.why}.` : `${sideName(s, r.hand_winner)} win the hand: ${r.why}.`;
  if (r.kot !== null) hand += ` A kot for ${sideName(s, r.kot, "object")}!`;
  let headline = hand, cls = watching || r.hand_winner === null ? "" : r.hand_winner === us ? "win" : "loss";
  if (s.status === "match-over") {
    cls = "";
    if (s.winner === "draw") headline = "The match is drawn.";
    else if (watching) headline = `${sideName(s, s.winner)} win the match.`;
    else if (s.winner === us) { headline = "You win the match!"; cls = "win"; }
    else { headline = "They win the match."; cls = "loss"; }
  }
  const details = (s.status === "match-over" ? `${hand} ` : "")
    + `${watching ? `${sideName(s, us)} against ${sideName(s, them, "object")}` : "Us-them"}: ${bits.join(", ")}.`
    + (r.next_dealer !== null ? ` Next dealer: ${seatName(r.next_dealer)}.` : "");
  const button = s.status === "match-over"
    ? el("button", { type: "button", class: "primary", id: "btn-again", dataset: { key: "again" }, onclick: () => newGame() }, "New game")
    : el("button", { type: "button", class: "primary", id: "btn-next", dataset: { key: "next" }, onclick: () => dealNext() }, "Next hand (n)");
  const saved = s.record ? el("div", { class: "details", id: "record-path", text: `Saved: ${s.record}` }) : null;
  return el("div", { class: `result ${cls}`, id: "result" },
    el("div", {}, el("div", { class: "headline", text: headline }), el("div", { class: "details", text: details }), saved), button);
}

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

// a side as people read it: we/us/they/them at a seat, its seats for spectators and the host
function sideName(s, side, form = "subject") { // subject: "We", inline: "we", object: "us"
  if (s.seat === null) {
    const seats = s.seats.filter((x) => x.side === side).map((x) => x.seat).join(" & ");
    return `${form === "subject" ? "Seats" : "seats"} ${seats}`;
  }
  const ours = side === s.side;
  return { subject: ours ? "We" : "They", inline: ours ? "we" : "they", object: ours ? "us" : "them" }[form];
}

function dealNote(s) {
  // how fair the deal is: the server's commitment to its secret seed, or a chosen seed that makes it known
  const d = s.deal;
  if (!d) return null;
  if (!d.commitment) return el("div", { class: "target", id: "deal-note", text: "Practice deal: it follows from the seed chosen for it, so whoever knows that seed knows every hand." });
  return el("div", { class: "target deal-note", id: "deal-note" },
    "Fair deal: before the first card the server committed to its secret seed, SHA-256 ", el("code", { id: "commitment", text: d.commitment }),
    d.seed ? [". Revealed seed: ", el("code", { id: "revealed-seed", text: d.seed }), "; check the record with dehla-replay --check-seed."]
      : ". The record reveals the seed when the game ends.");
}

function renderHand(s) {
  const box = $("#hand");
  const mine = s.status === "your-turn" && s.phase === "play";
  let prevSuit = null;
  box.replaceChildren(...s.hand.map((c, i) => {
    const legal = mine && c.legal;
    const cls = [mine ? (legal ? "legal" : "illegal") : "", prevSuit !== null && prevSuit !== c.suit ? "gap" : ""].join(" ");
    prevSuit = c.suit;
    return cardFace(c, "button", {
      type: "button", class: cls, disabled: !legal || null,
      dataset: { key: `card:${c.text}:${i}`, card: c.text },
      title: legal ? `Play ${c.rank}${c.symbol}` : (mine ? "Not playable: follow suit" : null),
      onclick: legal ? () => sendMove(c.text) : null,
    });
  }));
  fitHand(box);
}

const MIN_VISIBLE = 24; // px of each card left uncovered: its rank and suit, and room for a finger

function fitHand(box) {
  // overlap the cards just enough to fit the row (26 cards with six players); when that
  // would hide too much of each card (a phone), use two or three rows
  const cards = box.children.length;
  box.classList.remove("rows");
  if (!cards) return;
  const style = getComputedStyle(document.documentElement);
  const cardW = parseFloat(style.getPropertyValue("--card-w")) || 66;
  const groups = new Set(Array.from(box.children, (c) => c.dataset.card.slice(1))).size;
  const room = box.clientWidth - 24;
  const overlapFor = (n) => Math.max(6, Math.ceil((n * cardW + (groups - 1) * 18 - room) / Math.max(1, n - 1)));
  let overlap = overlapFor(cards);
  for (let rows = 2; rows <= 3 && cardW - overlap < MIN_VISIBLE; rows++) {
    overlap = overlapFor(Math.ceil(cards / rows));
    box.classList.add("rows");
  }
  box.style.setProperty("--overlap", `${overlap}px`);
}

function renderScore(s) {
  const us = s.side, them = 1 - s.side;
  const p = s.panels;
  const sc = s.score;
  const seatsOf = (side) => (s.seat === null ? sideName(s, side) : `${sideName(s, side)} (${s.seats.filter((x) => x.side === side).map((x) => x.seat).join(" & ")})`);
  const rows = [["Tricks", sc.tricks]];
  if (p.tens) rows.push(["Tens", sc.tens]);
  if (p.points) rows.push(["Points", sc.points]);
  if (p.kots) rows.push(["Kots", sc.kots]);
  const table = el("table", { class: "score-table", id: "score-table" },
    el("tr", {}, el("th", { text: `Hand ${s.hand_no}` }), el("th", { class: "we", text: seatsOf(us) }), el("th", { class: "they", text: seatsOf(them) })),
    rows.map(([label, v]) => el("tr", { dataset: { row: label.toLowerCase() } }, el("td", { text: label }), el("td", { class: "we", text: String(v[us]) }), el("td", { class: "they", text: String(v[them]) }))));
  const extra = [];
  if (p.streak && sc.streak) extra.push(`Streak: ${sideName(s, sc.streak[0], "inline")} ${sc.streak[1] === 1 ? "won the last hand" : `have won ${sc.streak[1]} in a row`}.`);
  if (p.lead) {
    const gap = sc.points[us] - sc.points[them];
    extra.push(gap === 0 ? "Level." : gap > 0 ? `${sideName(s, us)} lead by ${gap}.` : `${sideName(s, us)} trail by ${-gap}.`);
  }
  $("#score").replaceChildren(el("h3", { text: "Score" }), table,
    ...extra.map((t) => el("div", { class: "target", text: t })), el("div", { class: "target", text: s.target }),
    el("div", { class: "target", text: `Dealer: ${seatName(s.dealer)} · ${plural(s.score.hands_completed, "hand")} played` }), dealNote(s));
}

function renderTrump(s) {
  const t = s.trump;
  let symbol = "?", cls = "none", main, sub = "";
  const maker = t.maker !== null ? seatName(t.maker) : null;
  if (t.state === "none") {
    symbol = "–";
    main = "No trump yet";
    sub = s.trump_making;
  } else if (t.state === "hidden") {
    main = "Closed trump, hidden";
    sub = `${maker} chose it in secret; it is revealed the next time ${maker} cannot follow.`;
  } else if (t.state === "secret") {
    symbol = t.symbol; cls = t.suit === "H" || t.suit === "D" ? "red" : "";
    main = `${t.name}: your secret`;
    sub = "Not in force until you reveal it: the next time you cannot follow suit.";
  } else {
    symbol = t.symbol; cls = t.suit === "H" || t.suit === "D" ? "red" : "";
    main = t.name;
    sub = t.state === "drawn" ? `Drawn: ${t.draw_card.rank}${t.draw_card.symbol} (nobody was void in five tricks)` : `Made by ${maker}`;
  }
  $("#trump").replaceChildren(el("h3", { text: "Trump" }), // replaceChildren takes nodes only, no arrays
    el("div", { class: "trump-body", id: "trump-body", dataset: { state: t.state } },
      el("div", { class: `trump-symbol ${cls}`, text: symbol }),
      el("div", { class: "trump-text" }, el("b", { text: main }), el("div", { class: "small", text: sub }))));
}

function renderMiddle(s) {
  const box = $("#middle");
  const m = s.middle;
  box.hidden = !m;
  if (!m) return;
  const tens = m.cards.filter((c) => c.ten);
  const pile = el("div", { class: "pile", "aria-hidden": "true" }, Array.from({ length: Math.min(6, Math.ceil(m.count / 4)) }, (_, i) => el("span", { class: "back", style: `left:${i * 2}px;top:${(5 - i) * 2}px` })));
  let threat = null;
  if (m.taker !== null) {
    const ours = s.seats[m.taker].side === s.side;
    const who = seatName(m.taker);
    threat = el("div", { class: `threat ${ours ? "good" : "hot"}`, text: `${who} take${who === "You" ? "" : "s"} it by winning the next trick.` });
  } else if (m.count) {
    threat = el("div", { class: "threat", text: "Whoever wins two tricks in a row takes it." });
  }
  box.replaceChildren(el("h3", { text: "The middle" }),
    el("div", { class: "middle-body", id: "middle-body" },
      el("div", { class: "middle-pile" }, m.count ? pile : null,
        el("div", {}, el("b", { text: `${m.count} card${m.count === 1 ? "" : "s"}` }), ` · ${m.tens} ten${m.tens === 1 ? "" : "s"} `,
          el("span", { class: "ten-chips" }, tens.map((c) => el("span", { class: `ten-chip${c.red ? " red" : ""}`, text: `10${c.symbol}` }))))),
      threat || el("div", { class: "small", text: "Empty. The same player winning two tricks in a row takes the pile; the last trick takes what is left." })));
}

function renderBids(s) {
  const box = $("#bids");
  box.hidden = !s.panels.bids;
  if (!s.panels.bids) return;
  const items = s.bids.map((b) => el("li", {}, el("span", { text: seatName(b.seat) }), el("b", { text: b.move === "pass" ? "pass" : b.move.slice(4).replace(/[CDHS]$/, (x) => ({ C: "♣", D: "♦", H: "♥", S: "♠" })[x]) })));
  let contract = null;
  if (s.contract) {
    const c = s.contract;
    const side = s.seats[c.seat].side;
    const have = s.score.tricks[side];
    contract = el("div", { class: "contract", id: "contract", text: `Contract: ${seatName(c.seat)}, ${c.tricks}${c.symbol} (${sideName(s, side, "inline")} have ${have} of ${c.tricks})` });
  }
  box.replaceChildren(el("h3", { text: "Bidding" }),
    items.length ? el("ul", { class: "bid-list" }, items) : el("div", { class: "small", text: "No bids yet." }),
    ...(contract ? [contract] : []));
}

function renderLog(s) {
  const log = $("#log"); // a list without numbers
  log.replaceChildren(...s.log.map((line) => el("li", { class: /^(Hand|Trick|Contract|Match|Everyone)/.test(line) ? "major" : "", text: line })));
  log.scrollTop = log.scrollHeight;
}

function restoreFocus(key, status) {
  if (!$("#keys").hidden) return;
  let target = key ? document.querySelector(`[data-key="${CSS.escape(key)}"]:not(:disabled)`) : null;
  const becameMine = status === "your-turn" && app.lastStatus !== "your-turn";
  if (!target && (becameMine || status === "hand-over" || status === "match-over")) {
    target = document.querySelector("#hand .card.legal, #actions button:not(:disabled), #decision button:not(:disabled)");
  }
  if (target) target.focus({ preventScroll: true });
}

// ------------------------------------------------------------------ keyboard
const RANK_KEYS = "23456789tjqka";
const SUIT_KEYS = "cdhs";

function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const tag = (ev.target && ev.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const k = ev.key;
  if (k === "?") { toggleKeys(); ev.preventDefault(); return; }
  if (k === "Escape") { toggleKeys(false); app.typed = ""; renderTyped(); return; }
  const s = app.state;
  if (!s || !$("#keys").hidden) return;
  if (k === "ArrowLeft" || k === "ArrowRight") { moveFocus(k === "ArrowLeft" ? -1 : 1); ev.preventDefault(); return; }
  if ((k === "n" || k === "N") && s.status === "hand-over") { dealNext(); ev.preventDefault(); return; }
  if (s.status !== "your-turn") return;
  const key = k.toLowerCase();
  if (s.phase === "trump" && SUIT_KEYS.includes(key) && key.length === 1) { sendMove(`trump:${key.toUpperCase()}`); return; }
  if (s.phase === "bid") {
    if (key === "p") { sendMove("pass"); return; }
    if (/^[0-9]$/.test(key)) { app.typed = (app.typed + key).slice(-2); renderTyped(); return; }
    if (SUIT_KEYS.includes(key) && key.length === 1 && app.typed) {
      const n = app.typed;
      app.typed = "";
      renderTyped();
      sendMove(`bid:${Number(n)}${key.toUpperCase()}`);
    }
    return;
  }
  if (s.phase !== "play" || key.length !== 1) return;
  if (app.typed === "1" && key === "0") { app.typed = "t"; renderTyped(); return; }
  if (key === "1") { app.typed = "1"; renderTyped(); return; }
  if (RANK_KEYS.includes(key) && !(app.typed && SUIT_KEYS.includes(key))) { app.typed = key; renderTyped(); return; }
  if (SUIT_KEYS.includes(key) && app.typed && app.typed !== "1") {
    const card = (app.typed + key).toUpperCase();
    app.typed = "";
    renderTyped();
    sendMove(card); // the server refuses a card you may not play, and says why
  }
}

function renderTyped() { $("#typed").textContent = app.typed ? `typed: ${app.typed === "t" ? "10" : app.typed.toUpperCase()}` : ""; }

function moveFocus(step) {
  const items = Array.from(document.querySelectorAll("#hand .card:not(:disabled), #actions button:not(:disabled), #decision button:not(:disabled)"));
  if (!items.length) return;
  const i = items.indexOf(document.activeElement);
  const j = i < 0 ? (step > 0 ? 0 : items.length - 1) : (i + step + items.length) % items.length;
  items[j].focus();
}

function toggleKeys(show) {
  const box = $("#keys");
  box.hidden = show === undefined ? !box.hidden : !show;
  if (!box.hidden) $("#keys-close").focus();
}

// ------------------------------------------------------------------ start
async function init() {
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", () => fitHand($("#hand")));
  $("#setup-form").addEventListener("submit", startGame);
  $("#btn-new").addEventListener("click", newGame);
  $("#btn-keys").addEventListener("click", () => toggleKeys());
  $("#keys-close").addEventListener("click", () => toggleKeys(false));
  try {
    app.meta = await api("GET", "/api/meta");
  } catch (e) {
    document.body.dataset.state = "error";
    $("#setup").hidden = false;
    $("#setup-error").textContent = `The server does not answer: ${e.message}`;
    return;
  }
  $("#f-rules").replaceChildren(...Object.entries(app.meta.rulesets).map(([name, r]) => el("option", { value: name, text: r.title })));
  $("#f-rules").addEventListener("change", buildOptions);
  for (const input of [$("#f-partner"), $("#f-opponents")]) {
    input.addEventListener("input", () => agentHelp(input));
    agentHelp(input);
  }
  $("#f-speed").value = String(app.meta.bot_delay);
  if (!$("#f-speed").value) $("#f-speed").append(el("option", { value: String(app.meta.bot_delay), text: `${app.meta.bot_delay} s`, selected: true }));
  buildOptions();
  const id = location.hash.slice(1);
  if (id) {
    try {
      const s = await api("GET", `/api/games/${encodeURIComponent(id)}`);
      setState(s);
      return;
    } catch (e) {
      showSetup(e.message);
      return;
    }
  }
  showSetup();
}

// a page with its own script (data-page, e.g. tables.html) reuses the drawing above and starts itself
if (!document.body.dataset.page) init();
