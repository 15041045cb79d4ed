"""The browser game's "How to play" page (``GET /rules``, :mod:`agents.web.rulebook`):
the plain-words summary above the whole RULES.md shipped in the package, every rule
number visible and linkable, and nothing in the text able to inject markup; and the
setup form's plain words (``GET /api/meta``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")
try:  # starlette's TestClient runs on httpx2 (or, deprecated, httpx)
    import httpx2  # noqa: F401
except ImportError:
    pytest.importorskip("httpx", reason="starlette's TestClient needs httpx2: pip install httpx2")

from starlette.testclient import TestClient  # noqa: E402

from agents.web.rulebook import PRESET_SECTIONS, markdown_to_html, rules_text  # noqa: E402
from agents.web.server import ServerConfig, create_app  # noqa: E402
from dehla_env.rules import PRESET_TITLES, PRESETS, option_specs  # noqa: E402

LOCAL = "http://127.0.0.1"  # the server answers to its own (loopback) names


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(ServerConfig(record_dir=tmp_path / "records")), base_url=LOCAL) as c:
        yield c


def test_the_rules_page_has_the_summary_and_every_rule(client: Any) -> None:
    r = client.get("/rules")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    assert page.index("How to play, in short") < page.index('id="rule-book"')
    ids = set(re.findall(r'id="([^"]+)"', page))
    # every rule number of RULES.md is shown, as text, and is an anchor (R1.4 -> #r1-4)
    numbers = sorted(set(re.findall(r"\*\*R(\d)\.(\d+)\b", rules_text())))
    assert len(numbers) >= 30
    for major, minor in numbers:
        assert f">R{major}.{minor} " in page and f"r{major}-{minor}" in ids
    # each ruleset: its title in the summary and the contents, linking to its part
    for name in PRESETS:
        section = PRESET_SECTIONS[name]
        assert section in ids and page.count(f'href="#{section}"') >= 2
        assert page.count(PRESET_TITLES[name]) >= 2
    assert {href for href in re.findall(r'href="#([^"]+)"', page)} <= ids  # no link leads nowhere
    assert "<script" not in page and "http://" not in page and "https://" not in page  # nothing from elsewhere


def test_the_rules_page_leads_back_to_a_game_and_echoes_nothing_else(client: Any) -> None:
    page = client.get("/rules", params={"game": "web-20250101-120000-abc123"}).text
    assert '<a class="button" href="/#web-20250101-120000-abc123" id="rules-play">Back to the game</a>' in page
    for bad in ('"><script>alert(1)</script>', "x y", "a" * 81, "../x"):
        page = client.get("/rules", params={"game": bad}).text
        assert '<a class="button" href="/" id="rules-play">Play</a>' in page and "alert" not in page


def test_markdown_subset_escapes_everything_it_does_not_know() -> None:
    text = """# Title <b>

A **bold <i>** and *italic* word, `<code>` and R1.4; [here](#r1-4), [not a link](javascript:alert(1)).
<script>alert(1)</script>

- **R2.4 Trump.** Option `trump`:
  - a) `open`: as R1.4, a continued
    line
- second

Top level:
- after a paragraph

```json
{"a": "<b>"}
```
"""
    html = markdown_to_html(text)
    assert "<script" not in html and "<b>" not in html and "<i>" not in html and 'href="javascript' not in html
    assert '<h1 id="title-b">Title &lt;b&gt;</h1>' in html
    assert "<strong>bold &lt;i&gt;</strong>" in html and "<em>italic</em>" in html
    assert "<code>&lt;code&gt;</code>" in html and '<a href="#r1-4">here</a>' in html
    assert '<a class="ref" href="#r1-4">R1.4</a>;' in html
    assert "[not a link](javascript:alert(1))" in html  # shown as text, never a link
    assert '<li id="r2-4"><strong class="rule-no">R2.4 Trump.</strong> Option <code>trump</code>:<ul><li>' in html
    assert "a continued line</li></ul></li><li>second</li></ul>" in html
    assert "<p>Top level:</p>\n<ul><li>after a paragraph</li></ul>" in html  # a list right after a paragraph
    assert '<pre><code class="language-json">{&quot;a&quot;: &quot;&lt;b&gt;&quot;}</code></pre>' in html


def test_meta_explains_rulesets_options_and_agents(client: Any) -> None:
    meta = client.get("/api/meta").json()
    for name in PRESETS:
        ruleset = meta["rulesets"][name]
        assert ruleset["title"] == PRESET_TITLES[name] and len(ruleset["description"]) > 60
        for key, spec in option_specs(name).items():
            sent = ruleset["options"][key]
            assert sent["label"] == spec.label and sent["help"] == spec.help
            for choice in spec.choices or ():
                assert sent["choice_help"][str(choice)] == dict(spec.choice_help)[choice]
    assert set(meta["agent_help"]) == set(meta["agents"])
    assert "strongest" in meta["agent_help"]["hard"]
