"""The browser game in a real browser: ``python -m agents.web`` on 127.0.0.1 and headless
Chromium (Debian's ``chromium`` and ``chromium-driver``) through a whole hand: legal cards
clicked and typed, an illegal one refused, the score read, a screenshot saved.

Skips with one line when Chromium, its driver or Selenium is missing (``DEHLA_CHROMIUM``
and ``DEHLA_CHROMEDRIVER`` name other binaries). Set ``DEHLA_WEB_SCREENSHOT=docs/web.png``
to keep the mid-hand screenshot.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("DEHLA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("DEHLA_CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never download a browser or driver

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    pytest.skip("chromium/chromedriver absent: apt-get install -y chromium chromium-driver", allow_module_level=True)
pytest.importorskip("selenium", reason="selenium absent: pip install selenium")
pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The real command on a free port, bots without delay; yields (address, record folder)."""
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
        raise AssertionError(f"no address printed: {line!r} {proc.stderr.read() if proc.stderr else ''}")
    try:
        yield next(w for w in line.split() if w.startswith("http://")), records
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--no-proxy-server",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        "--window-size=1366,900",
    ):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except WebDriverException as e:
        pytest.skip(f"chromium does not start here: {e.msg}")
    try:
        yield driver
    finally:
        driver.quit()


def body_state(driver: Any) -> str:
    return driver.find_element(By.TAG_NAME, "body").get_attribute("data-state")


SETTLED = """
const app = window.dehla, state = document.body.dataset.state;
const waiting = ["your-turn", "hand-over", "match-over"].includes(state) && !app.driving && !app.sending;
return waiting ? state : null;
"""

HAND = """
const cards = (sel) => [...document.querySelectorAll(sel)].map((b) => b.dataset.card);
const illegal = [...document.querySelectorAll("#hand button.card.illegal")];
return {phase: window.dehla.state.phase, size: window.dehla.state.hand.length, legal: cards("#hand button.card.legal"),
        illegal: cards("#hand button.card.illegal"), disabled: illegal.every((b) => b.disabled)};
"""


def wait_settled(driver: Any) -> str:
    """Wait until the bots have moved and the page waits for the person (or the hand is over)."""
    try:
        return WebDriverWait(driver, 15, poll_frequency=0.02).until(lambda d: d.execute_script(SETTLED))
    except TimeoutException:
        toast = driver.find_element(By.ID, "toast").text
        raise AssertionError(f"the page did not settle: state {body_state(driver)!r}, message {toast!r}") from None


def version(driver: Any) -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-version"))


def score_row(driver: Any, row: str) -> tuple[int, int]:
    cells = driver.find_elements(By.CSS_SELECTOR, f"#score-table tr[data-row='{row}'] td")
    return int(cells[1].text), int(cells[2].text)


def test_a_whole_hand_in_chromium(server: tuple[str, Path], browser: Any, tmp_path: Path) -> None:
    url, records = server
    driver = browser
    driver.get(url)
    WebDriverWait(driver, 10).until(lambda d: body_state(d) == "setup")
    Select(driver.find_element(By.ID, "f-rules")).select_by_value("dehla")
    Select(driver.find_element(By.CSS_SELECTOR, "#f-options [name=trump]")).select_by_value("first-void")
    Select(driver.find_element(By.ID, "f-speed")).select_by_value("0")
    fields = {"#f-options [name=kots]": "1", "#f-options [name=max_hands]": "1"}  # one hand ends the match (R1.9)
    fields.update({"#f-partner": "easy", "#f-opponents": "easy", "#f-seed": "3"})
    driver.execute_script(
        "for (const [sel, v] of Object.entries(arguments[0])) document.querySelector(sel).value = v", fields
    )
    driver.find_element(By.ID, "f-start").click()

    refused = typed = False
    shot = tmp_path / "web.png"
    moves = 0
    while wait_settled(driver) == "your-turn":
        hand = driver.execute_script(HAND)
        assert hand["phase"] == "play"  # dehla first-void: no trump or bid decisions
        assert hand["legal"] and len(hand["legal"]) + len(hand["illegal"]) == hand["size"]
        assert hand["disabled"]  # illegal cards are not clickable
        if hand["illegal"] and not refused:
            before = version(driver)
            card = hand["illegal"][0]
            button = driver.find_element(By.CSS_SELECTOR, f"#hand button[data-card='{card}']")
            driver.execute_script("arguments[0].click()", button)  # a click on it does nothing
            assert version(driver) == before and body_state(driver) == "your-turn"
            driver.execute_script("window.dehla.sendMove(arguments[0])", card)  # the server refuses it too
            toast = driver.find_element(By.ID, "toast")
            WebDriverWait(driver, 5, poll_frequency=0.02).until(lambda d, t=toast: t.is_displayed())
            assert f'"{card}" by seat 0' in toast.text and "must follow suit" in toast.text and "R0.4" in toast.text
            assert version(driver) == before
            refused = True
        if moves == 6 and not shot.exists():
            driver.save_screenshot(str(shot))
            keep = os.environ.get("DEHLA_WEB_SCREENSHOT")
            if keep:
                shutil.copy(shot, ROOT / keep)
        before = version(driver)
        if not typed:  # the keyboard: rank then suit ("t" "s" is the ten of spades)
            ActionChains(driver).send_keys(hand["legal"][0].lower()).perform()
            typed = True
        else:
            driver.find_element(By.CSS_SELECTOR, f"#hand button.legal[data-card='{hand['legal'][-1]}']").click()
        WebDriverWait(driver, 5, poll_frequency=0.02).until(lambda d, v=before: version(d) > v)
        moves += 1
    assert moves == 13 and refused and typed

    assert body_state(driver) == "match-over"
    we, they = score_row(driver, "tens")
    assert we + they == 4  # all four tens are taken by the end (R1.5, R1.6)
    tricks = score_row(driver, "tricks")
    assert sum(tricks) == 13
    result = driver.find_element(By.ID, "result").text
    assert ("win the match" in result) or ("drawn" in result)
    log = driver.find_element(By.ID, "log").text
    assert "Trick 13 to" in log
    driver.save_screenshot(str(tmp_path / "web-end.png"))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    saved = driver.find_element(By.ID, "record-path").text.removeprefix("Saved: ")
    assert Path(saved).parent == records
    record = json.loads(Path(saved).read_text(encoding="utf-8"))
    assert record["human_seat"] == 0 and record["agents"] == ["human", "easy", "easy", "easy"]
    cards_played = [m for m in record["hands"][0]["moves"] if not m.startswith("draw:")]
    assert len(record["hands"]) == 1 and len(cards_played) == 52  # test_web_api.py replays records

    # a second game on the same page, Coat Pees, bid with the keyboard: 1 3 s is bid:13S,
    # which ends the bidding at once and makes spades trump (R4.2)
    driver.find_element(By.ID, "btn-again").click()
    WebDriverWait(driver, 5).until(lambda d: body_state(d) == "setup")
    Select(driver.find_element(By.ID, "f-rules")).select_by_value("coat-pees")
    driver.find_element(By.ID, "f-start").click()
    assert wait_settled(driver) == "your-turn"
    state = driver.execute_script("return window.dehla.state")
    assert state["phase"] == "bid" and state["rules"]["name"] == "coat-pees"
    assert len(driver.find_elements(By.CSS_SELECTOR, "#decision .bid-grid button")) == 28
    before = version(driver)
    ActionChains(driver).send_keys("13s").perform()
    WebDriverWait(driver, 5, poll_frequency=0.03).until(lambda d: version(d) > before)
    WebDriverWait(driver, 5).until(lambda d: "Contract" in d.find_element(By.ID, "contract").text)
    assert "13♠" in driver.find_element(By.ID, "contract").text
    assert driver.find_element(By.ID, "trump-body").text.startswith("♠")
