"""The browser game in a real browser: ``python -m agents.web`` on 127.0.0.1 and headless
Chromium (Debian's ``chromium`` and ``chromium-driver``) through a whole hand: legal cards
clicked and typed, an illegal one refused, the score read, a screenshot saved. Then the
same on a phone (390x844, Chromium's device emulation): a whole hand tapped, no page
wider than the screen at 360, 390 and 414 px, every control of the header and the form
reachable by scrolling down only, the trick's cards never over a seat, the "How to
play" view with its rule numbers, Coat Pees bidding and six players.

Skips with one line when Chromium, its driver or Selenium is missing (``DEHLA_CHROMIUM``
and ``DEHLA_CHROMEDRIVER`` name other binaries). Set ``DEHLA_WEB_SCREENSHOT=docs/web.png``
and ``DEHLA_WEB_PHONE_SCREENSHOT=docs/web-phone.png`` to keep the mid-hand screenshots
(made small with Pillow's palette, when Pillow is there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import (  # skips without Chromium, selenium or the web extra
    ROOT,
    ActionChains,
    By,
    Select,
    TimeoutException,
    WebDriverWait,
    assert_readable,
    chrome,
    phone,
    web_server,
)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The real command on a free port, bots without delay; yields (address, record folder)."""
    records = tmp_path / "records"
    with web_server(records) as address:
        yield address + "/", records


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    driver = chrome(tmp_path / "chromium-profile")
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


def wait_newer(driver: Any, before: int) -> None:
    """Wait until the page shows a table newer than version ``before`` (the move went through)."""
    WebDriverWait(driver, 5, poll_frequency=0.02).until(lambda d: version(d) > before)


def visible(element: Any) -> Any:
    """A wait condition: ``element`` is displayed."""
    return lambda driver: element.is_displayed()


def score_row(driver: Any, row: str) -> tuple[int, int]:
    cells = driver.find_elements(By.CSS_SELECTOR, f"#score-table tr[data-row='{row}'] td")
    return int(cells[1].text), int(cells[2].text)


def keep_screenshot(shot: Path, variable: str) -> None:
    """Copy ``shot`` to the path in environment ``variable`` (relative to the checkout),
    as a dithered 256-colour PNG when Pillow is installed (half the size, the same look)."""
    keep = os.environ.get(variable)
    if not keep:
        return
    try:
        from PIL import Image
    except ImportError:
        shutil.copy(shot, ROOT / keep)
        return
    with Image.open(shot) as image:
        rgb = image.convert("RGB")
        palette = rgb.quantize(colors=256, method=Image.Quantize.FASTOCTREE)  # keeps the few bright colours
        rgb.quantize(palette=palette, dither=Image.Dither.FLOYDSTEINBERG).save(ROOT / keep, optimize=True)


# What a page looks like to a person at this width: the page's width against the
# screen's, the controls out of reach (left or right of the screen, or above the page:
# only scrolling down is allowed), and the seats that a card of the trick lies on.
LAYOUT = """
const vw = window.innerWidth, box = (e) => e.getBoundingClientRect();
const shown = (e) => { const r = box(e); return r.width > 0 && r.height > 0; };
const controls = [...document.querySelectorAll(arguments[0])].filter(shown);
const away = (r) => r.left < -0.5 || r.right > vw + 0.5 || r.top + scrollY < -0.5;
const outside = controls.filter((e) => away(box(e)))
  .map((e) => e.id || e.getAttribute("name") || e.textContent.trim().slice(0, 24));
const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
  && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
const cards = [...document.querySelectorAll("#center .played .card")].map(box);
const covered = [...document.querySelectorAll("#seats .seat")]
  .filter((s) => cards.some((c) => overlap(c, box(s)))).map((s) => s.id);
return {width: vw, page: document.documentElement.scrollWidth, controls: controls.length, outside, covered,
        cards: cards.length};
"""
SETUP_CONTROLS = "header button, header a, #setup-form button, #setup-form select, #setup-form input, #setup-form a"
GAME_CONTROLS = "header button, header a, #actions button, #decision button, #result button, #hand button.legal"


def check_layout(driver: Any, controls: str, width: int | None = None) -> dict[str, Any]:
    """Assert the page fits the screen's width, every control matching ``controls`` is
    reachable, and no card of the trick covers a seat."""
    seen = driver.execute_script(LAYOUT, controls)
    where = f"at {seen['width']} px"
    if width is not None:
        assert seen["width"] == width, f"the screen is {seen['width']} px, not {width}"
    assert seen["page"] <= seen["width"], f"{where} the page is {seen['page']} px wide: it scrolls sideways"
    assert seen["controls"] and not seen["outside"], f"{where} out of reach: {seen['outside']}"
    assert not seen["covered"], f"{where} a card of the trick lies on {seen['covered']}"
    return seen


FOLD = """
const r = document.querySelector(arguments[0]).getBoundingClientRect();
return {top: r.top + window.scrollY, fold: window.innerHeight};
"""


TAP_POINT = """
const e = arguments[0], r = e.getBoundingClientRect();
for (const fx of [0.5, 0.3, 0.15, 0.7, 0.85]) for (const fy of [0.5, 0.3, 0.7]) {
  const x = r.left + r.width * fx, y = r.top + r.height * fy, hit = document.elementFromPoint(x, y);
  if (hit && e.contains(hit)) return [Math.round(x - r.left - r.width / 2), Math.round(y - r.top - r.height / 2)];
}
return null;
"""


def tap(driver: Any, element: Any) -> None:
    """Press ``element`` where a finger could: on a part of it nothing else covers (a card
    in a fanned hand shows only its left edge)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    point = driver.execute_script(TAP_POINT, element)
    assert point is not None, f"no part of {element.get_attribute('id') or element.text!r} can be touched"
    ActionChains(driver).move_to_element_with_offset(element, point[0], point[1]).click().perform()


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
        check_layout(driver, GAME_CONTROLS)
        if hand["illegal"] and not refused:
            before = version(driver)
            card = hand["illegal"][0]
            button = driver.find_element(By.CSS_SELECTOR, f"#hand button[data-card='{card}']")
            driver.execute_script("arguments[0].click()", button)  # a click on it does nothing
            assert version(driver) == before and body_state(driver) == "your-turn"
            driver.execute_script("window.dehla.sendMove(arguments[0])", card)  # the server refuses it too
            toast = driver.find_element(By.ID, "toast")
            WebDriverWait(driver, 5, poll_frequency=0.02).until(visible(toast))
            assert f'"{card}" by seat 0' in toast.text and "must follow suit" in toast.text and "R0.4" in toast.text
            link = toast.find_element(By.LINK_TEXT, "R0.4")  # the rule cited leads to the rule book
            assert link.get_attribute("href").endswith("#r0-4") and "/rules?game=" in link.get_attribute("href")
            assert version(driver) == before
            refused = True
        if moves == 6 and not shot.exists():
            driver.save_screenshot(str(shot))
            keep_screenshot(shot, "DEHLA_WEB_SCREENSHOT")
        before = version(driver)
        if not typed:  # the keyboard: rank then suit ("t" "s" is the ten of spades)
            ActionChains(driver).send_keys(hand["legal"][0].lower()).perform()
            typed = True
        else:
            driver.find_element(By.CSS_SELECTOR, f"#hand button.legal[data-card='{hand['legal'][-1]}']").click()
        wait_newer(driver, before)
        moves += 1
    assert moves == 13 and refused and typed

    assert body_state(driver) == "match-over"
    we, they = score_row(driver, "tens")
    assert we + they == 4  # all four tens are taken by the end (R1.5, R1.6)
    tricks = score_row(driver, "tricks")
    assert sum(tricks) == 13
    result = driver.find_element(By.ID, "result").text
    assert ("win the match" in result) or ("drawn" in result)
    assert "win the hand: " in result or "No winner this hand: " in result  # and why, by rule number
    assert "Practice deal" in driver.find_element(By.ID, "deal-note").text  # a chosen seed: the deal was known
    assert_readable(driver, "a finished match")
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
    wait_newer(driver, before)
    WebDriverWait(driver, 5).until(lambda d: "Contract" in d.find_element(By.ID, "contract").text)
    assert "13♠" in driver.find_element(By.ID, "contract").text
    assert driver.find_element(By.ID, "trump-body").text.startswith("♠")


def test_a_hand_on_a_phone(server: tuple[str, Path], browser: Any, tmp_path: Path) -> None:
    url, _records = server
    driver = browser
    phone(driver, 390)
    driver.get(url)
    WebDriverWait(driver, 10).until(lambda d: body_state(d) == "setup")
    for width in (360, 414, 390):
        phone(driver, width)
        check_layout(driver, SETUP_CONTROLS, width)

    # the form says what each choice means, in plain words
    Select(driver.find_element(By.ID, "f-rules")).select_by_value("dehla")
    assert "pile in the middle" in driver.find_element(By.ID, "f-rules-help").text
    trump = Select(driver.find_element(By.CSS_SELECTOR, "#f-options [name=trump]"))
    assert "cannot follow suit" in driver.find_element(By.ID, "opt-trump-help").text
    trump.select_by_value("chosen")
    assert "dealer's right" in driver.find_element(By.ID, "opt-trump-help").text
    trump.select_by_value("first-void")
    assert "Kots to win" in driver.find_element(By.CSS_SELECTOR, "label[for=opt-kots]").text
    assert "strongest" in driver.find_element(By.ID, "f-partner-help").text  # hard, the default partner
    Select(driver.find_element(By.ID, "f-speed")).select_by_value("0")
    fields = {"#f-options [name=kots]": "1", "#f-options [name=max_hands]": "1", "#f-seed": "5"}
    fields.update({"#f-partner": "easy", "#f-opponents": "easy"})
    driver.execute_script(
        "for (const [sel, v] of Object.entries(arguments[0])) document.querySelector(sel).value = v", fields
    )
    tap(driver, driver.find_element(By.ID, "f-start"))

    shot = tmp_path / "web-phone.png"
    moves = 0
    while wait_settled(driver) == "your-turn":
        seen = check_layout(driver, GAME_CONTROLS, 390)
        if moves == 5:  # cards on the table: the other widths too
            for width in (360, 414):
                phone(driver, width)
                check_layout(driver, GAME_CONTROLS, width)
            phone(driver, 390)
            driver.execute_script("window.scrollTo(0, 0)")
            driver.save_screenshot(str(shot))
            keep_screenshot(shot, "DEHLA_WEB_PHONE_SCREENSHOT")
            assert seen["cards"] or moves == 0
            middle = driver.execute_script(FOLD, "#middle")  # what the next trick wins, without scrolling
            assert middle["top"] + 60 <= middle["fold"], middle
            counts = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".seat .count")]
            assert counts and all(re.match(r"(\d+ cards?|no cards) · \d+ tricks?$", c) for c in counts), counts
            assert_readable(driver, "a hand on a phone")
        legal = driver.find_elements(By.CSS_SELECTOR, "#hand button.card.legal")
        before = version(driver)
        tap(driver, legal[moves % len(legal)])  # any legal card can be touched, not only the last
        wait_newer(driver, before)
        moves += 1
    assert moves == 13 and body_state(driver) == "match-over" and shot.exists()
    check_layout(driver, GAME_CONTROLS, 390)
    assert sum(score_row(driver, "tricks")) == 13
    assert "(R1.6)" in driver.find_element(By.ID, "result").text  # who won the hand, and by which rule
    assert not re.search(r"\b1 (tricks|tens|cards|hands)\b", driver.find_element(By.TAG_NAME, "body").text)
    assert_readable(driver, "a finished hand on a phone")

    # How to play: the summary, then the rule book with the numbers the messages cite
    tap(driver, driver.find_element(By.ID, "btn-rules"))
    WebDriverWait(driver, 10).until(lambda d: body_state(d) == "rules")
    check_layout(driver, "header a, .toc a", 390)
    assert_readable(driver, "the rule book on a phone")
    text = driver.find_element(By.TAG_NAME, "main").text
    assert text.index("How to play, in short") < text.index("R0.4 Tricks.") < text.index("R4.6 Next dealer.")
    tap(driver, driver.find_element(By.LINK_TEXT, "Coat Pees, with bidding (R4)"))
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return location.hash") == "#r4")
    top = driver.execute_script("return document.getElementById('r4').getBoundingClientRect().top")
    assert 0 <= top < 100  # the ruleset's part is in view
    tap(driver, driver.find_element(By.ID, "rules-play"))  # "Back to the game"
    WebDriverWait(driver, 10).until(lambda d: body_state(d) == "match-over")

    # Coat Pees: the bidding panel fits under the table and its buttons can be touched
    tap(driver, driver.find_element(By.ID, "btn-again"))
    WebDriverWait(driver, 5).until(lambda d: body_state(d) == "setup")
    Select(driver.find_element(By.ID, "f-rules")).select_by_value("coat-pees")
    tap(driver, driver.find_element(By.ID, "f-start"))
    assert wait_settled(driver) == "your-turn"
    assert check_layout(driver, GAME_CONTROLS, 390)["controls"] >= 29  # 28 bids and pass
    before = version(driver)
    tap(driver, driver.find_element(By.CSS_SELECTOR, "#decision button[data-move='bid:13S']"))
    WebDriverWait(driver, 5, poll_frequency=0.02).until(lambda d: version(d) > before)

    # six players: two seats a side, 26 cards in the hand, still nothing out of reach
    driver.execute_script("window.confirm = () => true")  # leaving an unfinished game asks first
    tap(driver, driver.find_element(By.ID, "btn-new"))
    WebDriverWait(driver, 5).until(lambda d: body_state(d) == "setup")
    Select(driver.find_element(By.ID, "f-rules")).select_by_value("dehla-direct")
    Select(driver.find_element(By.CSS_SELECTOR, "#f-options [name=players]")).select_by_value("6")
    tap(driver, driver.find_element(By.ID, "f-start"))
    for _ in range(2):
        assert wait_settled(driver) == "your-turn"
        check_layout(driver, GAME_CONTROLS, 390)
        legal = driver.find_elements(By.CSS_SELECTOR, "#hand button.card.legal")
        before = version(driver)
        tap(driver, legal[0])
        wait_newer(driver, before)


STUDY = {
    "id": "pilot",
    "title": "Playing with a bot partner",
    "consent": "You will play one hand with a bot partner. Nothing that identifies you is kept.",
    "rules": "dehla",
    "partners": ["easy"],
    "opponents": "easy",
    "hands": 1,
    "deals": {"offset": 20, "count": 1},
    "participants": 1,
    "enrolment": "open",
}

STUDY_STEP = """
const result = document.getElementById("result");
if (!result.hidden) return result.textContent;
const b = Array.from(document.querySelectorAll("#hand button, #actions button")).find((x) => !x.disabled);
if (b) b.click();
return null;
"""


@pytest.mark.parametrize("width", [390, 1400])
def test_a_study_hand_in_chromium(tmp_path: Path, width: int) -> None:
    """A participant reads the consent, plays the study's hand and reads who won and why."""
    study = tmp_path / "study.json"
    study.write_text(json.dumps(STUDY), encoding="utf-8")
    driver = chrome(tmp_path / "profile", width=width)
    try:
        with web_server(tmp_path / "records", "--study", str(study)) as url:
            if width < 640:
                phone(driver, width)
            driver.get(url + "/study/join")
            WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "agree").is_displayed())
            assert "bot partner" in driver.find_element(By.ID, "consent-text").text
            assert_readable(driver, f"the study's consent at {width} px")
            driver.find_element(By.ID, "agree").click()
            WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "table").is_displayed())
            assert_readable(driver, f"the study's table at {width} px")
            result = WebDriverWait(driver, 60, poll_frequency=0.1).until(lambda d: d.execute_script(STUDY_STEP))
            assert re.search(r"(We|They) win the hand: .*\(R1\.6\).*Us-them: tricks \d+-\d+, tens", result), result
            assert driver.find_element(By.ID, "trump-line").text.startswith("Trump: ")
            assert "kots" in driver.find_element(By.ID, "score-line").text
            assert not re.search(r"\b1 (tricks|tens|cards)\b", driver.find_element(By.TAG_NAME, "body").text)
            assert_readable(driver, f"the study's finished hand at {width} px")
    finally:
        driver.quit()
