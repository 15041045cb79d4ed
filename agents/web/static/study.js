// The study's page: consent, progress, and the person's table from /api/study/TOKEN.
// The server keeps the rules and decides what this seat may see; the page only shows it.
"use strict";

const $ = (sel) => document.querySelector(sel);
const study = { token: null, state: null, busy: false };
window.dehlaStudy = study; // for tests and the curious

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data;
  try { data = await res.json(); } catch (_) { data = { error: `HTTP ${res.status}` }; }
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}

const base = () => `/api/study/${encodeURIComponent(study.token)}`;

function show(s) {
  study.state = s;
  $("#error").textContent = "";
  $("#title").textContent = s.experiment.title;
  $("#progress").textContent = s.consent === "yes" ? `Hand ${Math.min(s.progress.done + 1, s.progress.total)} of ${s.progress.total} (${s.progress.done} done)` : "";
  $("#consent").hidden = s.consent !== null;
  $("#consent-text").textContent = s.consent_text;
  $("#label-field").hidden = !s.identifying;
  const done = s.finished || s.consent === "no";
  $("#done").hidden = !done;
  $("#done-text").textContent = s.consent === "no" ? "You did not agree, so nothing was played or kept." : "Every hand of the study is played.";
  $("#table").hidden = !s.table || done;
  if (s.table) renderTable(s.table);
}

function cardLabel(c) { return `${c.rank}${c.symbol}`; }

function plural(n, word) { return `${n} ${word}${n === 1 ? "" : "s"}`; }

function scoreText(t, v) {
  // us-them, the panels this ruleset has
  const us = t.side, them = 1 - t.side;
  const parts = [`tricks ${v.tricks[us]}-${v.tricks[them]}`];
  if (t.panels.tens) parts.push(`tens ${v.tens[us]}-${v.tens[them]}`);
  if (t.panels.points) parts.push(`points ${v.points[us]}-${v.points[them]}`);
  if (t.panels.kots) parts.push(`kots ${v.kots[us]}-${v.kots[them]}`);
  return `Us-them: ${parts.join(", ")}.`;
}

function trumpText(t) {
  const tr = t.trump;
  const maker = tr.maker !== null ? t.seats[tr.maker].name : null;
  if (tr.state === "none") return "Trump: none yet.";
  if (tr.state === "hidden") return `Trump: chosen in secret by ${maker}, not revealed yet.`;
  if (tr.state === "secret") return `Trump: ${tr.symbol} ${tr.name}, your secret until you reveal it.`;
  return `Trump: ${tr.symbol} ${tr.name}${tr.state === "drawn" ? " (drawn)" : maker ? `, made by ${maker}` : ""}.`;
}

function renderTable(t) {
  $("#prompt").textContent = t.prompt;
  const r = t.result;
  $("#result").hidden = !r;
  if (r) {
    const who = r.hand_winner === null ? "No winner this hand" : r.hand_winner === t.side ? "We win the hand" : "They win the hand";
    $("#result").textContent = `${who}: ${r.why}.${r.kot !== null ? ` A kot for ${r.kot === t.side ? "us" : "them"}!` : ""} ${scoreText(t, r)}`;
  }
  $("#trump-line").textContent = trumpText(t);
  $("#score-line").textContent = `Score this hand and match: ${scoreText(t, t.score)}`;
  $("#seats").replaceChildren(...t.seats.map((seat) => {
    const div = document.createElement("div");
    div.className = "seat" + (seat.to_act ? " to-act" : "");
    div.textContent = `${seat.name} (${seat.role}${seat.dealer ? ", dealer" : ""}): ${plural(seat.cards, "card")}, ${plural(seat.tricks, "trick")}`;
    return div;
  }));
  $("#trick").textContent = t.trick.plays.map((p) => `${t.seats[p.seat].name}: ${cardLabel(p.card)}`).join("  ·  ") || "-";
  const mine = t.status === "your-turn";
  $("#hand").replaceChildren(...t.hand.map((c) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = cardLabel(c);
    b.className = c.red ? "red" : "";
    b.disabled = !(mine && c.legal);
    b.addEventListener("click", () => send(c.text));
    return b;
  }));
  $("#actions").replaceChildren(...t.actions.filter((a) => a.legal).map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = a.label || a.move;
    b.disabled = !mine;
    b.addEventListener("click", () => send(a.move));
    return b;
  }));
  $("#next").hidden = !(t.status === "hand-over" || t.status === "match-over");
  $("#log").replaceChildren(...t.log.map((line) => { const p = document.createElement("div"); p.textContent = line; return p; }));
}

async function run(fn) {
  if (study.busy) return;
  study.busy = true;
  let ok = false;
  try { show(await fn()); ok = true; } catch (e) { $("#error").textContent = e.message; } finally { study.busy = false; }
  if (ok) drive(); // a refused step is not retried in a loop: the person reloads or clicks again
}

function send(move) { run(() => api("POST", `${base()}/move`, { move, version: study.state.table.version })); }

async function drive() {
  const t = study.state && study.state.table;
  if (!t || t.status !== "bot" || study.busy) return;
  setTimeout(() => run(() => api("POST", `${base()}/advance`, { version: t.version })), 0);
}

async function init() {
  const part = location.pathname.split("/").pop();
  try {
    if (part === "join") {
      const made = await api("POST", "/api/study/enrol", {});
      history.replaceState(null, "", made.link);
      study.token = made.token;
    } else {
      study.token = decodeURIComponent(part);
    }
    show(await api("GET", base()));
    drive();
  } catch (e) { $("#error").textContent = e.message; }
  $("#agree").addEventListener("click", () => run(() => api("POST", `${base()}/consent`, { agree: true, label: $("#label").value || null })));
  $("#decline").addEventListener("click", () => run(() => api("POST", `${base()}/consent`, { agree: false })));
  $("#next").addEventListener("click", () => run(() => api("POST", `${base()}/next`)));
}

init();
