"""A table with two people in two real browsers: headless Chromium, two separate
sessions (separate profiles), two people and two bots play a whole hand from their own
pages; neither page ever shows the other's cards (checked on every update the page
drew, R0.6); one person closes and reopens the page mid-hand and finds the table as it
was; the record replays with ``python -m dehla_env.replay`` (R6). One browser is a phone
(390 px), the other a desktop (1400 px): every update shows the commitment to the deal's
secret seed, the end reveals the seed, and ``--check-seed`` confirms the deals followed
from it; every text is readable (WCAG AA) on both, and on the spectator's page after.

Skips with one line when Chromium, its driver or Selenium is missing (see
``test_web_browser.py`` for ``DEHLA_CHROMIUM`` and ``DEHLA_CHROMEDRIVER``)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import assert_readable, chrome, phone, web_server  # skips without Chromium, selenium, web


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    records = tmp_path / "records"
    with web_server(records) as address:
        yield address, records


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[list[Any]]:
    drivers = [chrome(tmp_path / "profile-a", width=390)]
    try:
        phone(drivers[0], 390)  # a phone, 390x844
        drivers.append(chrome(tmp_path / "profile-b", width=1400))  # a desktop
        yield drivers
    finally:
        for d in drivers:
            d.quit()


PLAY = """
const s = window.dehla.state;
if (!s || document.body.dataset.connected !== "yes") return null;
if (s.status === "your-turn") {
  const b = document.querySelector(
    "#hand button.card.legal, #actions button:not(:disabled), #decision button:not(:disabled)");
  if (b && b.dataset.lastVersion !== String(s.version)) { b.dataset.lastVersion = String(s.version); b.click(); }
}
return {status: s.status, version: s.version, seat: s.seat};
"""


def test_two_people_in_two_browsers_play_a_hand(server: tuple[str, Path], browsers: list[Any]) -> None:
    base, records = server
    body = {"rules": "dehla", "options": {"max_hands": 1}, "seats": ["person", "person", "easy", "easy"]}
    request = urllib.request.Request(
        base + "/api/tables", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        table = json.loads(r.read())
    links = [table["links"]["seats"]["0"], table["links"]["seats"]["1"]]
    for driver, link in zip(browsers, links):
        driver.get(link)
        assert "#key=" in driver.current_url
    seen: list[list[dict[str, Any]]] = [[], []]
    reconnected = False
    moves = [0, 0]
    last_version = [-1, -1]
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "the hand did not finish"
        states = [driver.execute_script(PLAY) for driver in browsers]
        for i, state in enumerate(states):
            if state and state["status"] == "your-turn" and state["version"] != last_version[i]:
                last_version[i] = state["version"]
                moves[i] += 1
        if all(s and s["status"] == "match-over" for s in states):
            break
        if not reconnected and moves[0] >= 3 and states[0] and states[0]["status"] != "match-over":
            before = browsers[0].execute_script("return window.dehla.state")
            seen[0] += browsers[0].execute_script("return window.dehlaTable.seen")
            browsers[0].get("about:blank")  # the page is closed: its socket drops
            browsers[0].get(links[0])
            for _ in range(200):
                after = browsers[0].execute_script("return window.dehla.state")
                if after:
                    break
                time.sleep(0.02)
            assert after["seat"] == 0
            if after["version"] == before["version"]:
                assert after["hand"] == before["hand"] and after["log"] == before["log"]
            assert {c["text"] for c in after["hand"]} <= {c["text"] for c in before["hand"]}
            reconnected = True
        time.sleep(0.03)
    assert reconnected and min(moves) >= 10, (reconnected, moves)
    for i, driver in enumerate(browsers):
        seen[i] += driver.execute_script("return window.dehlaTable.seen")
        assert "Dehla Pakad" in driver.find_element("id", "game-title").text  # the solo page's words
        assert "win the hand: " in driver.find_element("id", "result").text  # and why, by rule number
        assert_readable(driver, f"a finished table at {driver.execute_script('return innerWidth')} px")
    # a fair deal: each update showed the same commitment, the end reveals the seed behind it
    commitments = {e["commitment"] for page in seen for e in page}
    assert len(commitments) == 1 and len(next(iter(commitments))) == 64, commitments
    revealed = browsers[1].find_element("id", "revealed-seed").text
    assert hashlib.sha256(revealed.encode("ascii")).hexdigest() in commitments
    # neither page ever showed a card the other still held at that moment
    for me, other in ((0, 1), (1, 0)):
        theirs = sorted(seen[other], key=lambda e: e["version"])
        for entry in seen[me]:
            later = next((e for e in theirs if e["version"] >= entry["version"]), None)
            if later is None:
                continue
            leaked = set(entry["cards"]) & set(later["hand"])
            assert not leaked, (me, entry["version"], leaked)
            assert set(entry["hand"]) <= set(entry["cards"])
    record = records / browsers[0].execute_script("return window.dehla.state.record")
    data = json.loads(record.read_text())
    assert data["result"] == "finished" and data["agents"] == ["person", "person", "easy", "easy"]
    assert str(data["seed"]) == revealed and data["commitment"] in commitments
    done = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay", "--check-seed", str(record)], capture_output=True, text=True
    )
    assert done.returncode == 0 and json.loads(done.stdout)["seed_check"] == "ok", done.stdout + done.stderr
    # the spectator's page names the sides by their seats
    browsers[1].get("about:blank")  # a new page: the same page with another fragment would keep its socket
    browsers[1].get(table["links"]["spectator"])
    for _ in range(200):
        if browsers[1].execute_script("return window.dehla.state && window.dehla.state.status") == "match-over":
            break
        time.sleep(0.02)
    result = browsers[1].find_element("id", "result").text
    assert "Seats 0 & 2 against seats 1 & 3" in result and " We " not in f" {result} ", result
    assert_readable(browsers[1], "the spectator's page")
