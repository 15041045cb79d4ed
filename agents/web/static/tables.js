// A table with several people. /tables is the host's form; /tables/ID#key=SECRET is a
// table's page for the link's holder (a seat, a spectator or the host). The secret stays
// in the URL's fragment, which the browser never sends; the page sends it once, as the
// first message of the table's WebSocket, and from then on draws each state the server
// pushes (built for this link only) with app.js's drawing. It holds no rules.
"use strict";

const tbl = {
  ws: null,
  key: null,
  id: null,
  gone: false, // the server closed the table or this link: do not reconnect
  retry: 0,
  seen: [], // for tests: every drawn update's version and the cards its page showed
};
window.dehlaTable = tbl;

// ------------------------------------------------------------------ app.js hooks
rulesHref = function (anchor = "") { return `/rules${anchor ? `#${anchor}` : ""}`; };
newGame = function () { location.href = "/tables"; };
sendMove = function (move) { send({ type: "move", move, version: app.state ? app.state.version : null }); };
app.sendMove = sendMove;
dealNext = function () { if (app.state && app.state.status === "hand-over") send({ type: "deal" }); };
const drawResult = resultBox;
resultBox = function (s) {
  const box = drawResult(s);
  if (s.table.role === "spectator") box.querySelectorAll("button").forEach((b) => b.remove());
  if (s.status === "match-over") box.querySelectorAll("#btn-again").forEach((b) => { b.textContent = "New table"; });
  return box;
};
buildSeats = function () {
  // one row per seat: a person (who gets a link) or a bot from the catalogue
  const players = Number(($("#f-options [name=players]") || { value: 4 }).value);
  const box = $("#f-seats");
  const old = Array.from(box.querySelectorAll("select")).map((s) => s.value);
  box.replaceChildren(el("legend", { text: "Seats (partners sit opposite: even seats against odd)" }));
  for (let s = 0; s < players; s++) {
    const kind = el("select", { id: `seat-kind-${s}`, "aria-label": `Seat ${s}` },
      el("option", { value: "person", text: "a person" }), el("option", { value: "bot", text: "a bot" }));
    kind.value = old[s] || (s < 2 ? "person" : "bot");
    const spec = el("input", { id: `seat-bot-${s}`, list: "agent-list", value: "hard", spellcheck: "false", autocapitalize: "off", "aria-label": `Seat ${s}'s bot` });
    const sync = () => { spec.hidden = kind.value !== "bot"; };
    kind.addEventListener("change", sync);
    sync();
    box.append(el("div", { class: "field seat-row" }, el("span", { class: "who", text: `Seat ${s} (side ${s % 2})` }), kind, spec));
  }
};

// ------------------------------------------------------------------ the host's form
async function createTable(ev) {
  ev.preventDefault();
  $("#f-start").disabled = true;
  $("#setup-error").textContent = "";
  const seats = Array.from($("#f-seats").querySelectorAll(".seat-row"), (row) => {
    const kind = row.querySelector("select").value;
    return kind === "person" ? "person" : row.querySelector("input").value.trim();
  });
  try {
    const t = await api("POST", "/api/tables", { rules: $("#f-rules").value, options: formOptions(), seats, bot_delay: Number($("#f-speed").value) });
    $("#setup").hidden = true;
    showLinks(t.links);
  } catch (e) {
    $("#setup-error").textContent = e.message;
  } finally {
    $("#f-start").disabled = false;
  }
}

function linkRow(label, url, id) {
  const input = el("input", { readonly: true, value: url, id, "aria-label": label, onfocus: (ev) => ev.target.select() });
  const copy = el("button", { type: "button", text: "Copy", onclick: () => { input.select(); if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {}); } });
  return el("li", {}, el("b", { text: label }), el("div", { class: "link-row" }, input, copy, el("a", { class: "button", href: url, target: "_blank", rel: "noopener", text: "Open" })));
}

function absolute(link) { return link.startsWith("http") ? link : location.origin + link; }

function showLinks(links) {
  $("#links").hidden = false;
  const rows = Object.entries(links.seats).map(([s, url]) => linkRow(`Seat ${s} (a person)`, absolute(url), `link-seat-${s}`));
  rows.push(linkRow("Spectators", absolute(links.spectator), "link-spectator"));
  rows.push(linkRow("You, the host (seats, links, closing)", absolute(links.host), "link-host"));
  $("#link-list").replaceChildren(...rows);
}

// ------------------------------------------------------------------ the table's socket
function send(message) {
  if (tbl.ws && tbl.ws.readyState === WebSocket.OPEN) tbl.ws.send(JSON.stringify(message));
  else showToast("Not connected: reconnecting…");
}

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/tables/${encodeURIComponent(tbl.id)}`);
  tbl.ws = ws;
  document.body.dataset.connected = "connecting";
  ws.onopen = () => { tbl.retry = 0; document.body.dataset.connected = "yes"; ws.send(JSON.stringify({ type: "hello", key: tbl.key })); };
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (_) { return; }
    if (m.type === "state") {
      app.state = m.state;
      render();
      renderHost(m.state);
      remember(m.state);
    } else if (m.type === "error") {
      if (m.closed || m.error.startsWith("no such table")) tbl.gone = true;
      showToast(m.error);
      if (tbl.gone) $("#prompt").textContent = m.error;
    }
  };
  ws.onclose = () => {
    document.body.dataset.connected = "no";
    if (tbl.gone) return;
    tbl.retry = Math.min(tbl.retry + 1, 6);
    setTimeout(connect, 250 * 2 ** tbl.retry); // the table waits on the server: come back to it
  };
}

function cardsOnPage() {
  // every card the page shows, by its code (TS, QD...): for tests that check a page never holds another seat's cards
  const found = new Set(Array.from(document.querySelectorAll("[data-card]"), (n) => n.dataset.card));
  const code = (rank, sym) => `${rank === "10" ? "T" : rank}${{ "♠": "S", "♥": "H", "♦": "D", "♣": "C" }[sym]}`;
  document.querySelectorAll(".card .corner").forEach((c) => {
    const m = c.textContent.match(/^(10|[2-9JQKA])([♠♥♦♣])/);
    if (m) found.add(code(m[1], m[2]));
  });
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.textContent.matchAll(/(10|[2-9JQKA])([♠♥♦♣])/g)) found.add(code(m[1], m[2]));
  }
  for (const n of document.querySelectorAll("[aria-label], [title]")) {
    for (const m of `${n.getAttribute("aria-label") || ""} ${n.getAttribute("title") || ""}`.matchAll(/(10|[2-9JQKA])([♠♥♦♣])/g)) found.add(code(m[1], m[2]));
  }
  return [...found];
}

function remember(s) {
  const shown = document.getElementById("commitment"); // the deal's commitment, as this update showed it
  tbl.seen.push({ version: s.version, hand: s.hand.map((c) => c.text), cards: cardsOnPage(), commitment: shown ? shown.textContent : null });
  if (tbl.seen.length > 2000) tbl.seen.shift();
}

// ------------------------------------------------------------------ the host's panel
function renderHost(s) {
  const box = $("#host");
  const t = s.table;
  if (t.role !== "host") { box.hidden = true; return; }
  box.hidden = false;
  const rows = t.seats.map((seat) => {
    const status = seat.person ? el("span", { class: seat.connected ? "online" : "offline", text: seat.connected ? "● here" : "○ away" }) : el("span", { text: seat.kind });
    let control;
    if (seat.person) {
      const spec = el("input", { value: "hard", list: "agent-list", "aria-label": `Bot for seat ${seat.seat}` });
      control = [spec, el("button", { type: "button", text: "Give to a bot", onclick: () => send({ type: "bot", seat: seat.seat, bot: spec.value.trim() }) })];
    } else {
      control = [el("button", { type: "button", text: "Invite a person", onclick: () => send({ type: "invite", seat: seat.seat }) })];
    }
    return el("div", { class: "seat-row", dataset: { seat: String(seat.seat) } }, el("span", { class: "who", text: `Seat ${seat.seat}` }), status, ...control);
  });
  box.replaceChildren(el("h3", { text: "Host" }), ...rows,
    el("div", { class: "seat-row" }, el("button", { type: "button", text: "Links", onclick: () => { showLinks(t.links); $("#links").scrollIntoView(); } }),
      el("button", { type: "button", text: "Close the table", onclick: () => { if (confirm("Close the table? The game is saved as unfinished.")) send({ type: "close" }); } })));
  if (!$("#links").hidden) showLinks(t.links);
}

// ------------------------------------------------------------------ start
async function start() {
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", () => fitHand($("#hand")));
  $("#keys-close").addEventListener("click", () => toggleKeys(false));
  const m = location.pathname.match(/^\/tables\/([A-Za-z0-9_-]+)$/);
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  let failed = null;
  try {
    app.meta = await api("GET", "/api/meta"); // the games' and options' names, as the solo page words them
  } catch (e) {
    failed = e;
  }
  if (m && key) {
    tbl.id = m[1];
    tbl.key = key;
    $("#game").hidden = false;
    connect();
    return;
  }
  if (failed) {
    $("#setup").hidden = false;
    $("#setup-error").textContent = `The server does not answer: ${failed.message}`;
    return;
  }
  $("#f-rules").replaceChildren(...Object.entries(app.meta.rulesets).map(([name, r]) => el("option", { value: name, text: r.title })));
  $("#f-rules").addEventListener("change", buildOptions);
  $("#agent-list").replaceChildren(...app.meta.agents.map((a) => el("option", { value: a })));
  $("#setup-form").addEventListener("submit", createTable);
  buildOptions();
  document.body.dataset.state = "setup";
  $("#setup").hidden = false;
}

start();
