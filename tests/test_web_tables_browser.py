"""A table with two people in two real browsers: headless Chromium, two separate
sessions (separate profiles), two people and two bots play a whole hand from their own
pages; neither page ever shows the other's cards (checked on every update the page
drew, R0.6); one person closes and reopens the page mid-hand and finds the table as it
was; the record replays with ``python -m dehla_env.replay`` (R6).

Skips with one line when Chromium, its driver or Selenium is missing (see
``test_web_browser.py`` for ``DEHLA_CHROMIUM`` and ``DEHLA_CHROMEDRIVER``)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import chrome, web_server  # skips without Chromium, selenium or the web extra


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    records = tmp_path / "records"
    with web_server(records) as address:
        yield address, records


def _driver(profile: Path) -> Any:
    return chrome(profile, width=412)  # a phone's width


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[list[Any]]:
    drivers = [_driver(tmp_path / "profile-a")]
    try:
        drivers.append(_driver(tmp_path / "profile-b"))
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
    body = {"rules": "dehla", "options": {"max_hands": 1}, "seats": ["person", "person", "easy", "easy"], "seed": 21}
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
        if not reconnected and moves[0] >= 3 and states[0] and states[0]["status"] == "waiting":
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
    assert reconnected and min(moves) >= 10
    for i, driver in enumerate(browsers):
        seen[i] += driver.execute_script("return window.dehlaTable.seen")
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
    done = subprocess.run([sys.executable, "-m", "dehla_env.replay", str(record)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
