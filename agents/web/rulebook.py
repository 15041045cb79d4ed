"""The "How to play" page: a plain-words summary above the full rule book (RULES.md).

The rule book ships inside the package (``dehla_env/RULES.md``, package data), so the
page is rendered from the very text the engine cites: the game's messages name rules
(``R0.4``), and every rule keeps its number here, with an anchor (``/rules#r0-4``) and
links from each mention of another rule to it.

:func:`markdown_to_html` is deliberately small and strict rather than a markdown
library (no new dependency, and no way for the text to inject markup): it knows the
few constructs RULES.md uses (``#`` headings, paragraphs, ``-`` lists nested by
indentation with continuation lines, fenced code, ``**bold**``, ``*italic*``, ```code```
and same-page links ``[text](#anchor)``) and escapes everything else, so a ``<`` in the
text is shown, never interpreted.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from importlib import resources

from dehla_env.rules import PRESET_DESCRIPTIONS, PRESET_TABLE, PRESET_TITLES, PRESETS

#: the part of RULES.md (its ``## Rn.`` heading) that defines each ruleset
PRESET_SECTIONS = {name: p.section.lower() for name, p in PRESET_TABLE.items()}

_CODE_SPAN = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)([^*]+?)(?<!\s)\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\((#[A-Za-z0-9_-]+)\)")
_ANCHOR = re.compile(r"(<a [^>]*>.*?</a>)")
_RULE_REF = re.compile(r"\bR(\d)(?:\.(\d+))?([a-d])?\b")
_LABEL = re.compile(r"^\*\*(R(\d)\.(\d+)\b[^*]*)\*\*(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_BULLET = re.compile(r"^( *)- (.*)$")


def rule_anchor(major: str, minor: str | None = None) -> str:
    """The page anchor of rule ``R{major}.{minor}`` (``r1-4``), or of part ``R{major}`` (``r1``)."""
    return f"r{major}-{minor}" if minor else f"r{major}"


def rules_text() -> str:
    """RULES.md as shipped in the ``dehla_env`` package."""
    return (resources.files("dehla_env") / "RULES.md").read_text(encoding="utf-8")


def _inline(text: str, refs: bool = True) -> str:
    """One line or paragraph of markdown as HTML: code spans verbatim (escaped), then
    bold, italic and same-page links; with ``refs``, each ``R1.4`` links to its rule."""
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_inline_plain(text[pos : m.start()], refs))
        out.append(f"<code>{html.escape(m.group(1))}</code>")
        pos = m.end()
    out.append(_inline_plain(text[pos:], refs))
    return "".join(out)


def _inline_plain(text: str, refs: bool) -> str:
    # escaping first leaves *, [, ], (, ) and # alone, so the patterns below still match,
    # and whatever they wrap is escaped text
    s = html.escape(text, quote=True)
    s = _BOLD.sub(r"<strong>\1</strong>", s)
    s = _ITALIC.sub(r"<em>\1</em>", s)
    s = _LINK.sub(r'<a href="\2">\1</a>', s)
    if not refs:
        return s
    # link the rule numbers outside the links made above (a link never holds another)
    parts = _ANCHOR.split(s)
    for k in range(0, len(parts), 2):
        parts[k] = _RULE_REF.sub(lambda m: f'<a class="ref" href="#{rule_anchor(m[1], m[2])}">{m[0]}</a>', parts[k])
    return "".join(parts)


def _slug(text: str) -> str:
    """A heading's anchor: ``r1`` for ``R1. ...``, else its words joined by hyphens."""
    m = re.match(r"R(\d)\.", text)
    if m:
        return rule_anchor(m[1])
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())) or "section"


@dataclass
class _Item:
    """A list item being read: its text lines and the list nested in it."""

    lines: list[str]
    indent: int
    children: list[_Item] = field(default_factory=list)


def _render_items(items: list[_Item]) -> str:
    parts = ["<ul>"]
    for item in items:
        text = " ".join(line.strip() for line in item.lines)
        label = _LABEL.match(text)
        if label:  # "**R1.4 Making the trump.** ...": the rule's anchor, its number not linked to itself
            anchor = rule_anchor(label[2], label[3])
            body = f'<strong class="rule-no">{_inline(label[1], refs=False)}</strong>{_inline(label[4])}'
            parts.append(f'<li id="{anchor}">{body}')
        else:
            parts.append(f"<li>{_inline(text)}")
        if item.children:
            parts.append(_render_items(item.children))
        parts.append("</li>")
    parts.append("</ul>")
    return "".join(parts)


def markdown_to_html(text: str) -> str:
    """The subset of markdown RULES.md uses, as HTML; everything else is escaped text."""
    out: list[str] = []
    para: list[str] = []
    items: list[_Item] = []  # the top-level items of the list being read
    stack: list[_Item] = []  # the open items, outermost first
    lines = text.splitlines()
    i = 0

    def flush_para() -> None:
        if para:
            out.append(f"<p>{_inline(' '.join(line.strip() for line in para))}</p>")
            para.clear()

    def flush() -> None:
        flush_para()
        if items:
            out.append(_render_items(items))
            items.clear()
            stack.clear()

    while i < len(lines):
        line = lines[i].rstrip()
        i += 1
        if line.lstrip().startswith("```"):
            flush()
            lang = re.sub(r"[^a-z0-9-]", "", line.strip()[3:].lower())
            code: list[str] = []
            while i < len(lines) and not lines[i].lstrip().startswith("```"):
                code.append(lines[i])
                i += 1
            i += 1  # the closing fence
            cls = f' class="language-{lang}"' if lang else ""
            out.append(f"<pre><code{cls}>{html.escape(chr(10).join(code))}</code></pre>")
            continue
        if not line.strip():
            flush()
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            level, title = len(heading[1]), heading[2].strip()
            out.append(f'<h{level} id="{_slug(title)}">{_inline(title, refs=False)}</h{level}>')
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush_para()  # a list may follow a paragraph's last line directly ("Top level:")
            indent = len(bullet[1])
            while stack and stack[-1].indent >= indent:
                stack.pop()
            item = _Item([bullet[2]], indent)
            (stack[-1].children if stack else items).append(item)
            stack.append(item)
            continue
        if stack:  # a continuation line of the open item
            stack[-1].lines.append(line)
            continue
        para.append(line)
    flush()
    return "\n".join(out)


def summary_markdown() -> str:
    """How to play in plain words: what the game is, how a hand goes, how it is won,
    each ruleset in two sentences with a link to its part of the rule book."""
    rulesets = "\n".join(
        f"- **[{PRESET_TITLES[name]}](#{PRESET_SECTIONS[name]})** (`{name}`): {PRESET_DESCRIPTIONS[name]}"
        for name in PRESETS
    )
    return f"""## How to play, in short

Dehla Pakad, Court Piece and Coat Pees are card games for four players in two pairs;
partners sit opposite each other. Here you play one seat and bots play the others.

- **A hand.** Each player gets 13 cards (in most rulesets five first, then the other
  eight). The player on the dealer's right leads: plays any card face up. Going round to
  the right, everybody plays one card, and must play the same suit as the first card if
  they have one; a player who has none of that suit may play any card.
- **A trick.** The four cards played are a trick. The highest card of the suit that was
  led wins it, unless someone played a trump: then the highest trump wins. Aces are high:
  A K Q J 10 9 8 7 6 5 4 3 2. Whoever wins the trick leads the next one.
- **Trump** is one suit that beats every other suit for the whole hand. How it is chosen
  depends on the ruleset: often the first player who cannot follow suit makes it.
- **Winning.** In Dehla Pakad the tens (*dehla* means ten) are what count: the pair that
  captures more of the four tens wins the hand. In Court Piece and Coat Pees only the
  number of tricks counts. A *kot* is a big win, such as all four tens in one hand;
  the options of each game say how many kots, points or wins in a row win the match.

## The four rulesets

{rulesets}

## At this table

- Your playable cards are raised; the others are dimmed because you must follow suit.
  Tap or click a card to play it, or type it (`t` `s` is the ten of spades).
- The seats around the table show who is who, the dealer, who made trump and whose turn
  it is; the panels show the score, the trump and the hand's log.
- When a move is refused, the message names the rule it breaks, such as
  [R0.4](#r0-4): every rule below keeps its number.

## Words you will meet

- **Follow suit:** play a card of the suit that was led. **Void:** having no card of it.
- **Dehla:** a ten. **The middle:** in classic Dehla Pakad, the pile of won tricks
  that the next player to win two tricks in a row takes ([R1.5](#r1-5)).
- **Kot:** a big win that counts toward the match; **sirr:** taking all four tens in a
  round. **Bid:** a promise to win at least that many tricks ([R4.2](#r4-2)).
"""


PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>How to play - Dehla Pakad</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/static/style.css">
</head>
<body class="rules-page" data-state="rules">
  <header class="topbar">
    <div class="brand"><span class="logo" aria-hidden="true">&#9824;&#9829;</span> How to play</div>
    <nav><a class="button" href="{back}" id="rules-play">{back_text}</a></nav>
  </header>
  <main class="rulebook">
    <nav class="toc" aria-label="Contents">
      <a href="#how-to-play-in-short">In short</a>
      <a href="#the-four-rulesets">The rulesets</a>
      {toc}
      <a href="#rule-book">Full rule book</a>
    </nav>
    <article id="summary">
{summary}
    </article>
    <article id="rule-book" class="rule-text">
{book}
    </article>
  </main>
</body>
</html>
"""


_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")


def rules_page(game: str | None = None) -> str:
    """The whole "How to play" page as HTML; with the id of the ``game`` being played
    (``/rules?game=ID``, as the table links it) its button leads back to that game."""
    back, back_text = ("/#" + game, "Back to the game") if game and _GAME_ID.fullmatch(game) else ("/", "Play")
    toc = "\n      ".join(
        f'<a href="#{PRESET_SECTIONS[name]}">{html.escape(PRESET_TITLES[name])}</a>' for name in PRESETS
    )
    return PAGE.format(
        back=html.escape(back),
        back_text=back_text,
        toc=toc,
        summary=markdown_to_html(summary_markdown()),
        book=markdown_to_html(rules_text()),
    )


__all__ = ["PRESET_SECTIONS", "markdown_to_html", "rule_anchor", "rules_page", "rules_text", "summary_markdown"]
