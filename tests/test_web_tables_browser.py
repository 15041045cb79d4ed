"""A table with two people in two real browsers: headless Chromium, two separate
sessions (separate profiles), two people and two bots play a whole hand from their own
pages; neither page ever shows the other's cards (checked on every update the page
drew, R0.6); one person closes and reopens the page mid-hand and finds the table as it
was; the record replays with ``python -m dehla_env.replay`` (R6).

Skips with one line when Chromium, its driver or Selenium is missing (see
``test_web_browser.py`` for ``DEHLA_CHROMIUM`` and ``DEHLA_CHROMEDRIVER``)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("DEHLA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("DEHLA_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
os.environ.setdefault("SE_OFFLINE", "true")

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    pytest.skip("chromium/chromedriver absent: apt-get install -y chromium chromium-driver", allow_module_level=True)
pytest.importorskip("selenium", reason="selenium absent: pip install selenium")
pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    records = tmp_path / "records"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.web", "--port", "0", "--record-dir", str(records), "--bot-delay", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://127.0.0.1:" not in line:
        proc.kill()
        raise AssertionError(f"no address printed: {line!r}")
    try:
        yield next(w for w in line.split() if w.startswith("http://")).rstrip("/"), records
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)


def _driver(profile: Path) -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--no-proxy-server",
        f"--user-data-dir={profile}",
        "--window-size=412,900",  # a phone's width
    ):
        options.add_argument(arg)
    try:
        return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except WebDriverException as e:
        pytest.skip(f"chromium does not start here: {e.msg}")


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
