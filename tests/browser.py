"""What the browser tests share: Debian's Chromium and ChromeDriver (the module skips
where they, selenium or the web extra are missing), a headless Chrome with the flags a
closed network needs, and the real ``dehla-web`` command on a free port."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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

# what the tests drive the page with, imported here so that a missing selenium skips
__all__ = [
    "ROOT",
    "ActionChains",
    "By",
    "Select",
    "TimeoutException",
    "WebDriverWait",
    "assert_readable",
    "chrome",
    "phone",
    "web_server",
]


def chrome(profile: Path, width: int = 1366, height: int = 900) -> Any:
    """A headless Chrome with its own profile folder; the test skips if it cannot start."""
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
        f"--user-data-dir={profile}",
        f"--window-size={width},{height}",
    ):
        options.add_argument(arg)
    try:
        return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except WebDriverException as e:
        pytest.skip(f"chromium does not start here: {e.msg}")


@contextmanager
def web_server(records: Path, *flags: str) -> Iterator[str]:
    """The real command on a free port, bots without delay, records in ``records`` (and
    ``flags``, e.g. ``--study FILE``); yields its address (``http://127.0.0.1:PORT``)
    and stops it with SIGINT."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.web", "--port", "0", "--record-dir", str(records), "--bot-delay", "0", *flags],
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
        yield next(w for w in line.split() if w.startswith("http://")).rstrip("/")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)


def phone(driver: Any, width: int, height: int = 844) -> None:
    """Make the page a phone's: its width in CSS pixels, the viewport meta tag obeyed."""
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


# WCAG 2.x contrast of every visible text on the page against what lies behind it: the
# background colours of its ancestors composited from the page down (a gradient counts
# as each of its colours, the worst one taken); disabled controls are exempt (WCAG 1.4.3).
CONTRAST = """
const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
  const v = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
const lum = (c) => { const f = (x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
function behind(el) {
  const chain = []; for (let e = el; e; e = e.parentElement) chain.unshift(e);
  let under = [[255, 255, 255, 1]];
  for (const e of chain) {
    const st = getComputedStyle(e);
    const stops = (st.backgroundImage.match(/rgba?\\([^)]+\\)/g) || []).map(parse);
    if (stops.length) under = stops.flatMap((c) => under.map((u) => over(c, u)));
    const bg = parse(st.backgroundColor);
    if (bg && bg[3] > 0) under = under.map((u) => over(bg, u));
  }
  return under;
}
const low = [];
for (const el of document.querySelectorAll("body *")) {
  if (!Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
  const r = el.getBoundingClientRect(), st = getComputedStyle(el);
  if (!r.width || !r.height || st.visibility === "hidden" || el.closest("[hidden], :disabled")) continue;
  let opacity = 1; for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
  if (opacity < 0.1) continue;
  const bgs = behind(el), fg = parse(st.color);
  const size = parseFloat(st.fontSize), bold = Number(st.fontWeight) >= 700;
  const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
  const worst = Math.min(...bgs.map((b) => ratio(over([fg[0], fg[1], fg[2], fg[3] * opacity], b), b)));
  if (worst < need) low.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className} `
    + `"${el.textContent.trim().slice(0, 40)}" ${worst.toFixed(2)}:1 (needs ${need})`);
}
return low;
"""


def assert_readable(driver: Any, where: str) -> None:
    """Every visible text of the page at WCAG AA contrast (4.5:1, 3:1 for large text)."""
    low = driver.execute_script(CONTRAST)
    assert not low, f"{where}: text below WCAG AA contrast: {low[:8]}"
