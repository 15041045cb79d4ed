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
__all__ = ["ROOT", "ActionChains", "By", "Select", "TimeoutException", "WebDriverWait", "chrome", "web_server"]


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
def web_server(records: Path) -> Iterator[str]:
    """The real command on a free port, bots without delay, records in ``records``;
    yields its address (``http://127.0.0.1:PORT``) and stops it with SIGINT."""
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
        yield next(w for w in line.split() if w.startswith("http://")).rstrip("/")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
