"""The experiment file of a study (docs/study.md): read safely, checked field by field.

An experiment file is written by the person running a study and read by a server that
others can reach, so it is treated as untrusted text: it is read at most
:data:`MAX_FILE_BYTES` far, YAML aliases and anchors' references are refused before they
are expanded (a "billion laughs" file is a few hundred bytes), a key given twice is an
error rather than a silent overwrite, and every field is checked for its type and
range. Every problem is one line that names the file and the field
(``study.yaml: partners[1]: ...``), so the operator fixes it before any participant
arrives.

JSON needs nothing beyond the standard library; YAML needs PyYAML (``pip install
pyyaml``, part of the ``train`` extra).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.playing.deal_sets import DealSet, load, preset_for
from agents.registry import default_bot
from agents.user_files import UserFileError, read_json, read_text, read_yaml
from agents.web.bots import Catalogue
from agents.web.guard import shown
from dehla_env.rules import PRESETS, Rules, RulesError, make_rules

#: the largest experiment file read (a consent text of a few pages fits many times over)
MAX_FILE_BYTES = 64 * 1024
#: an experiment id: it names the study's folder and is written into every record
ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
MAX_PARTNERS = 16
MAX_HANDS = 1000
MAX_PARTICIPANTS = 10_000
FIELDS = (
    *("id", "title", "consent", "rules", "options", "partners", "opponents", "hands", "deals"),
    *("participants", "enrolment", "max_participants", "identifying"),
)
ENROLMENTS = ("links", "open")


class ExperimentError(ValueError):
    """A refused experiment file: one line naming the file and the field."""


@dataclass(frozen=True)
class Experiment:
    """A checked experiment file (see docs/study.md for each field's meaning)."""

    id: str
    title: str
    consent: str
    rules: Rules
    partners: tuple[str, ...]  # participant k plays with partners[k % len(partners)]
    opponents: str
    hands: int  # hands each participant plays
    offset: int  # the first deal of the set the study uses
    count: int  # deals offset .. offset + count - 1; participant k starts (k * hands) % count in
    participants: int  # links made when the server starts
    enrolment: str  # as the file says: "links" or "open"
    open_enrolment: bool  # besides the made links, a link that enrols anyone (up to max_participants)
    max_participants: int
    identifying: bool  # False: nothing that could identify a person is asked or kept
    deal_set: DealSet = field(compare=False, repr=False)  # follows from rules (arrays: not compared)

    def deal_indices(self, number: int) -> list[int]:
        """The deals (indices into the set) that participant ``number`` plays, in order."""
        first = (number * self.hands) % self.count
        return [self.offset + (first + j) % self.count for j in range(self.hands)]

    def partner_of(self, number: int) -> str:
        """Round robin over the partners by order of enrolment."""
        return self.partners[number % len(self.partners)]

    @staticmethod
    def seat_for(index: int) -> int:
        """The person's seat on deal ``index``: seat 0 on even deals, seat 1 on odd ones,
        so each side of the duplicate deal is played by people as often as the other."""
        return index % 2

    def metadata(self) -> dict[str, Any]:
        """What every record and dataset row says about the experiment."""
        return {
            "experiment": self.id,
            "title": self.title,
            "rules": self.rules.name,
            "options": self.rules.option_dict(),
            "opponents": self.opponents,
            "deal_set": self.deal_set.preset.name,
            "deal_set_version": self.deal_set.version,
        }


def read_experiment_text(path: Path) -> Any:
    """The file's data (JSON or YAML), read safely (:mod:`agents.user_files`);
    :class:`ExperimentError` otherwise."""
    try:
        text = read_text(path, MAX_FILE_BYTES, "an experiment file")
        if path.suffix.lower() == ".json" or text.lstrip().startswith("{"):
            return read_json(text, path.name)
        return read_yaml(text, path.name)
    except UserFileError as e:
        raise ExperimentError(str(e)) from None


def _text(name: str, data: dict[str, Any], key: str, limit: int, default: str | None = None) -> str:
    value = data.get(key, default)
    if value is None:
        raise ExperimentError(f"{name}: {key}: missing (a text)")
    if not isinstance(value, str) or not value.strip():
        raise ExperimentError(f"{name}: {key}: must be a non-empty text, not {shown(value)}")
    if len(value) > limit:
        raise ExperimentError(f"{name}: {key}: at most {limit} characters, not {len(value)}")
    return value.strip()


def _int(name: str, data: dict[str, Any], key: str, lo: int, hi: int, *, default: int | None = None) -> int:
    value = data.get(key, default)
    if value is None:
        raise ExperimentError(f"{name}: {key}: missing (a whole number {lo}..{hi})")
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ExperimentError(f"{name}: {key}: must be a whole number {lo}..{hi}, not {shown(value)}")
    return value


def _spec(name: str, key: str, value: Any, catalogue: Catalogue) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 400:
        raise ExperimentError(f"{name}: {key}: must be an agent spec such as hard or search:k=16, not {shown(value)}")
    try:
        catalogue.check(value.strip())
    except (ValueError, KeyError) as e:
        raise ExperimentError(f"{name}: {key}: {catalogue.scrub(str(e))}") from None
    return value.strip()


def check_experiment(data: Any, name: str = "experiment", catalogue: Catalogue | None = None) -> Experiment:
    """The :class:`Experiment` of parsed file data, or :class:`ExperimentError` naming the field."""
    catalogue = catalogue or Catalogue()
    if not isinstance(data, dict):
        raise ExperimentError(f"{name}: must be a mapping of fields ({', '.join(FIELDS)}), not {type(data).__name__}")
    unknown = [str(k) for k in data if k not in FIELDS]
    if unknown:
        raise ExperimentError(f"{name}: {unknown[0]}: not a field of an experiment file (fields: {', '.join(FIELDS)})")
    exp_id = _text(name, data, "id", 40)
    if not ID_PATTERN.fullmatch(exp_id):
        raise ExperimentError(f"{name}: id: lower-case letters, digits and '-', 1..40 long, not {shown(exp_id)}")
    title = _text(name, data, "title", 200)
    consent = _text(name, data, "consent", 20_000)
    rules_name = _text(name, data, "rules", 40)
    if rules_name not in PRESETS:
        raise ExperimentError(f"{name}: rules: unknown ruleset {rules_name!r}; known: {', '.join(PRESETS)}")
    options = data.get("options") or {}
    if not isinstance(options, dict) or not all(
        isinstance(k, str) and (v is None or isinstance(v, (str, int, float, bool))) for k, v in options.items()
    ):
        raise ExperimentError(f"{name}: options: must be a mapping of option names to plain values")
    try:
        rules = make_rules(rules_name, options)
    except (RulesError, ValueError, TypeError) as e:
        raise ExperimentError(f"{name}: options: {str(e).splitlines()[0] if str(e) else e!r}") from None
    partners_raw = data.get("partners", [default_bot(rules)])  # none named: the ruleset's shipped policy, else hard
    if isinstance(partners_raw, str):
        partners_raw = [partners_raw]
    if not isinstance(partners_raw, list) or not 1 <= len(partners_raw) <= MAX_PARTNERS:
        raise ExperimentError(f"{name}: partners: must be a list of 1..{MAX_PARTNERS} agent specs")
    partners = tuple(_spec(name, f"partners[{i}]", p, catalogue) for i, p in enumerate(partners_raw))
    if len(set(partners)) != len(partners):
        raise ExperimentError(f"{name}: partners: a spec is listed twice")
    opponents = _spec(name, "opponents", data.get("opponents", "medium"), catalogue)
    hands = _int(name, data, "hands", 1, MAX_HANDS)
    deals = data.get("deals")
    if not isinstance(deals, dict) or set(deals) - {"offset", "count"}:
        raise ExperimentError(f"{name}: deals: must be a mapping with offset and count, e.g. {{offset: 0, count: 20}}")
    try:
        deal_set = load(preset_for(rules))
    except ValueError as e:
        raise ExperimentError(f"{name}: rules: {e}") from None
    size = len(deal_set)
    offset = _int(name, deals, "offset", 0, size - 1, default=0)
    count = _int(name, deals, "count", 1, size - offset, default=hands)
    if hands > count:
        raise ExperimentError(f"{name}: hands: {hands} is more than the {count} deals of deals.count")
    participants = _int(name, data, "participants", 0, MAX_PARTICIPANTS, default=0)
    enrolment = data.get("enrolment", "links")
    if enrolment not in ENROLMENTS:
        raise ExperimentError(f"{name}: enrolment: one of {', '.join(ENROLMENTS)}, not {shown(enrolment)}")
    max_participants = _int(name, data, "max_participants", 1, MAX_PARTICIPANTS, default=max(participants, 100))
    if participants > max_participants:
        raise ExperimentError(f"{name}: participants: {participants} is more than max_participants {max_participants}")
    if enrolment == "links" and participants == 0:
        raise ExperimentError(f"{name}: participants: 0 links and enrolment: links lets nobody in")
    identifying = data.get("identifying", False)
    if not isinstance(identifying, bool):
        raise ExperimentError(f"{name}: identifying: true or false, not {shown(identifying)}")
    return Experiment(
        id=exp_id,
        title=title,
        consent=consent,
        rules=rules,
        partners=partners,
        opponents=opponents,
        hands=hands,
        offset=offset,
        count=count,
        participants=participants,
        enrolment=str(enrolment),
        open_enrolment=enrolment == ENROLMENTS[1],
        max_participants=max_participants,
        identifying=identifying,
        deal_set=deal_set,
    )


def load_experiment(path: Path | str, catalogue: Catalogue | None = None) -> Experiment:
    """Read and check an experiment file (see the module docstring)."""
    path = Path(path)
    return check_experiment(read_experiment_text(path), path.name, catalogue)


__all__ = [
    "ENROLMENTS",
    "FIELDS",
    "MAX_FILE_BYTES",
    "Experiment",
    "ExperimentError",
    "check_experiment",
    "load_experiment",
    "read_experiment_text",
]
