"""A study of human-bot partnership: participants, their hands, the bot baseline, the dataset.

    python -m agents.web --study study.yaml [--record-dir DIR]      # serve it (links printed)
    python -m agents.web.study check study.yaml
    python -m agents.web.study export study.yaml [--record-dir DIR] [--out data.csv]
    python -m agents.web.study analyse study.yaml [--record-dir DIR] [--data data.jsonl]

**Design.** An experiment file (:mod:`.experiment`) names the ruleset, the bot partners,
the bot opponents, how many hands each participant plays and which deals of the
benchmark's shipped set (:mod:`agents.playing.deal_sets`) the study uses. Participant ``k``
(in order of enrolment) plays with ``partners[k % len(partners)]`` on ``hands``
consecutive deals of the range, starting ``k * hands`` into it, so with ``count ==
hands`` every participant plays the same deals. The person sits at seat 0 on an even
deal and seat 1 on an odd one, so both sides of every duplicate deal get played.

**The baseline.** The same deals are played by the bots alone with the arena's
duplicate machinery (:func:`agents.playing.run.run_duel` on the set, ``fixed=``, from the
set's own seed): the partner spec on both seats of the person's side against the same
opponents, both ways round. The person's result on deal ``i`` is compared with the
bot+bot result on deal ``i`` *in the same seats*, so the cards cancel out and what is
left is what the person changed.

**Records.** Every hand a participant finishes is one R6 record (``hands/<participant>-
d<deal>.jsonl`` in the study's folder, ``python -m dehla_env.replay`` plays it back) with
a ``study`` object: the experiment's metadata, the anonymous participant id, the partner
spec, the deal's index, the person's seat and side and the side's score. A hand left
unfinished (the tab closed, the server stopped) is not recorded; the participant
replays that deal from its start.

**Privacy.** A participant is ``p-`` and random hex, made by the server; nothing of the
request (address, browser) is stored. The link's token is a separate secret that stays
in the study's folder and never enters a record or the dataset. Only when the file
says ``identifying: true`` does the consent form ask for a name or contact, which is
kept in ``participants.json`` and the records; by default there is no such field.

**Analysis.** :func:`analyse` compares the human+bot side's score (hands won, no winner
counting half) with the bot+bot side's per partner. One person's skill runs through all
their hands, so the participant, not the hand, is the unit of its intervals.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import secrets
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent
from agents.playing.deals import agent_seed, seed_of
from agents.playing.loop import play
from agents.playing.stats import Estimate, format_table, ratio_ci
from agents.web.bots import Catalogue, policy_files
from agents.web.experiment import Experiment, ExperimentError, load_experiment
from agents.web.game import WebGame
from agents.web.records import default_record_dir, record_of, save_record, utc_text, write_atomic
from dehla_env.actions import action_text
from dehla_env.engine import Phase
from dehla_env.seats import side_of

#: dataset columns, in order (CSV header and JSON Lines keys)
COLUMNS = (
    *("experiment", "participant", "partner", "opponents", "deal_index", "seat", "side"),  # who played what
    *("human_score", "botbot_score", "difference", "tens", "record"),  # how it went
)


@dataclass
class Participant:
    """One enrolled participant; ``token`` is the secret of their link."""

    participant: str
    token: str
    number: int  # order of enrolment: picks the partner and the deals
    partner: str
    consent: str | None = None  # None: not asked yet; "yes" or "no"
    consented_at: str | None = None
    hands_done: int = 0
    label: str | None = None  # only with identifying: true


@dataclass
class StudyHand:
    """The hand a participant is playing now."""

    game: WebGame
    index: int  # the deal's index in the set
    recorded: bool = False


def _share(winner: int | None, side: int) -> float:
    """A side's score of one hand: a win 1, no winner half (as the arena counts it)."""
    if winner is None:
        return 0.5
    return 1.0 if winner == side else 0.0


class Study:
    """A running study: its participants (``participants.json``), the hands being played
    and the records written, all in ``folder`` (see the module docstring).

    No web code here: the server (:mod:`.study_server`) and a simulation call the same
    methods, so a simulated study exercises everything but HTTP.
    """

    def __init__(self, experiment: Experiment, folder: Path) -> None:
        self.experiment = experiment
        self.folder = Path(folder)
        self.hands_dir = self.folder / "hands"
        self.registry = self.folder / "participants.json"
        self.participants: dict[str, Participant] = {}  # token -> participant
        self.playing: dict[str, StudyHand] = {}  # token -> the hand in play
        self._lock = threading.Lock()
        self._load()
        while len(self.participants) < experiment.participants:
            self.enrol()

    # ------------------------------------------------------------------ participants
    def _load(self) -> None:
        if not self.registry.exists():
            return
        try:
            data = json.loads(self.registry.read_text(encoding="utf-8"))
            if data.get("experiment") != self.experiment.id:
                raise ExperimentError(f"{self.registry}: belongs to experiment {data.get('experiment')!r}")
            for row in data["participants"]:
                p = Participant(**row)
                self.participants[p.token] = p
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ExperimentError(f"{self.registry}: not a readable participant list ({e})") from None

    def _save(self) -> None:
        rows = [asdict(p) for p in sorted(self.participants.values(), key=lambda p: p.number)]
        write_atomic(self.registry, json.dumps({"experiment": self.experiment.id, "participants": rows}, indent=1))

    def enrol(self) -> Participant:
        """A new anonymous participant (``p-`` and random hex) with the next partner."""
        with self._lock:
            if len(self.participants) >= self.experiment.max_participants:
                raise StudyFull(f"the study has its most participants ({self.experiment.max_participants})")
            taken = {p.participant for p in self.participants.values()}
            pid = f"p-{secrets.token_hex(4)}"
            while pid in taken:
                pid = f"p-{secrets.token_hex(4)}"
            number = len(self.participants)
            p = Participant(pid, secrets.token_urlsafe(16), number, self.experiment.partner_of(number))
            self.participants[p.token] = p
            self._save()
            return p

    def get(self, token: str) -> Participant | None:
        return self.participants.get(token)

    def consent(self, p: Participant, agree: bool, label: str | None = None) -> None:
        """Record the answer to the consent text; a "no" is final and nothing is played."""
        if p.consent is not None:
            raise StudyRefusal(f"consent was answered already ({p.consent})")
        with self._lock:
            p.consent = "yes" if agree else "no"
            p.consented_at = utc_text()
            if agree and self.experiment.identifying and label:
                p.label = label.strip()[:200]
            self._save()

    def links(self, base: str) -> list[str]:
        """The participant links (and the open enrolment link) of a server at ``base``."""
        base = base.rstrip("/")
        out = [f"{base}/study/{p.token}  ({p.participant})" for p in self._ordered()]
        if self.experiment.open_enrolment:
            out.append(f"{base}/study/join  (open enrolment)")
        return out

    def _ordered(self) -> list[Participant]:
        return sorted(self.participants.values(), key=lambda p: p.number)

    # ------------------------------------------------------------------ hands
    def finished(self, p: Participant) -> bool:
        return p.hands_done >= self.experiment.hands

    def current(self, p: Participant) -> StudyHand | None:
        """The participant's hand in play (the last one stays until :meth:`next_hand`, so
        its result can be read), dealt now if none is; None: no consent, or done."""
        hand = self.playing.get(p.token)
        if hand is not None:
            return hand
        if p.consent != "yes" or self.finished(p):
            return None
        hand = self._deal(p)
        self.playing[p.token] = hand
        return hand

    def _deal(self, p: Participant) -> StudyHand:
        exp = self.experiment
        index = exp.deal_indices(p.number)[p.hands_done]
        deals = exp.deal_set.deals
        deck = [int(c) for c in deals.decks[index]]
        game = WebGame(
            f"{exp.id}-{p.participant}-d{index}",
            exp.rules,
            exp.seat_for(index),
            p.partner,
            exp.opponents,
            seed=seed_of(exp.deal_set.seed, index, p.number),
            deck_source=lambda _dealer, _rng: deck,
            first_dealer=int(deals.dealers[index]),
            chance_seed=int(deals.chance[index]),
        )
        for seat, bot in game.bots.items():  # seeded as the arena seeds them: the baseline's own bots
            bot.seed(agent_seed(exp.deal_set.seed, index, seat))
        return StudyHand(game, index)

    @staticmethod
    def hand_over(hand: StudyHand) -> bool:
        """Whether the hand is complete (a study game is one hand of a match)."""
        match = hand.game.match
        return bool(match.summaries) and (match.is_terminal() or match.hand.phase == Phase.DONE)

    def after_change(self, p: Participant, hand: StudyHand) -> None:
        """Write the record as soon as the hand is complete."""
        if self.hand_over(hand) and not hand.recorded:
            self.write_record(p, hand)
            hand.recorded = True
            with self._lock:
                p.hands_done += 1
                self._save()

    def next_hand(self, p: Participant) -> StudyHand | None:
        """Move on once the current hand is recorded (None: the participant is done)."""
        hand = self.playing.get(p.token)
        if hand is not None and not hand.recorded:
            raise StudyRefusal("the hand is not over yet")
        self.playing.pop(p.token, None)
        return self.current(p)

    def write_record(self, p: Participant, hand: StudyHand) -> Path:
        """The hand's R6 record with the ``study`` object (see the module docstring)."""
        game = hand.game
        summary = game.match.summaries[-1]
        side = side_of(game.human)
        record = record_of(game, "finished")
        record["source"] = "agents.web.study"
        record["study"] = {
            **self.experiment.metadata(),
            "participant": p.participant,
            "partner": p.partner,
            "deal_index": hand.index,
            "hand_number": p.hands_done + 1,
            "seat": game.human,
            "side": side,
            "hand_winner": summary.hand_winner,
            "score": _share(summary.hand_winner, side),
            "tens": [int(t) for t in game.match.hand.tens],
            **({"label": p.label} if p.label else {}),
        }
        return save_record(game, self.hands_dir, "finished", record, f"{p.participant}-d{hand.index}")


class StudyFull(Exception):
    """No more participants may enrol."""


class StudyRefusal(Exception):
    """A step the study does not allow now (the text says why)."""


def study_folder(experiment: Experiment, record_dir: Path | None = None) -> Path:
    """``<record dir>/study-<experiment id>``: the study's records and participants."""
    return (record_dir if record_dir is not None else default_record_dir()) / f"study-{experiment.id}"


def open_study(path: Path | str, record_dir: Path | None = None, policy_dir: Path | None = None) -> Study:
    """The study of an experiment file, in its folder under ``record_dir``."""
    experiment = load_experiment(path, Catalogue(policy_files(policy_dir)))
    return Study(experiment, study_folder(experiment, record_dir))


# ---------------------------------------------------------------------- baseline
def baseline(experiment: Experiment, folder: Path | None = None) -> dict[str, dict[int, tuple[float, float]]]:
    """Per partner spec, per deal index: the bot+bot side's score in game 0 (its side on
    the even seats) and game 1 (the odd seats), from :func:`agents.playing.run.run_duel` on the
    experiment's deals. Cached in ``folder/baseline.json`` (it depends on the file only)."""
    from agents.playing.run import run_duel

    cache = None if folder is None else folder / "baseline.json"
    key = {
        **experiment.metadata(),
        "offset": experiment.offset,
        "count": experiment.count,
        "partners": list(experiment.partners),
    }
    if cache is not None and cache.exists():
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            if data.get("key") == key:
                return {
                    spec: {int(i): (float(a), float(b)) for i, (a, b) in scores.items()}
                    for spec, scores in data["scores"].items()
                }
        except (OSError, ValueError, KeyError, TypeError):
            pass  # recomputed below
    ds = experiment.deal_set
    out: dict[str, dict[int, tuple[float, float]]] = {}
    for spec in experiment.partners:
        duel = run_duel(
            experiment.rules,
            spec,
            experiment.opponents,
            experiment.count,
            ds.seed,
            fixed=ds.deals,
            start=experiment.offset,
        )
        out[spec] = {r.index: (float(r.game_scores[0]), float(r.game_scores[1])) for r in duel.records}
    if cache is not None:
        write_atomic(
            cache, json.dumps({"key": key, "scores": {s: {str(i): v for i, v in d.items()} for s, d in out.items()}})
        )
    return out


# ---------------------------------------------------------------------- dataset
def read_records(folder: Path) -> list[dict[str, Any]]:
    """The study records in ``folder/hands`` (one per file), by participant and deal."""
    records = []
    for path in sorted((folder / "hands").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                record["_file"] = path.name
                records.append(record)
    return records


def dataset(experiment: Experiment, folder: Path) -> list[dict[str, Any]]:
    """One row per participant hand (:data:`COLUMNS`): the human side's score and the
    bot+bot side's on the same deal and seats."""
    base = baseline(experiment, folder)
    rows = []
    for record in read_records(folder):
        s = record.get("study") or {}
        if s.get("experiment") != experiment.id:
            continue
        partner, index, side = s["partner"], int(s["deal_index"]), int(s["side"])
        botbot = base.get(partner, {}).get(index)
        bb = None if botbot is None else botbot[side]
        rows.append(
            {
                "experiment": experiment.id,
                "participant": s["participant"],
                "partner": partner,
                "opponents": s["opponents"],
                "deal_index": index,
                "seat": int(s["seat"]),
                "side": side,
                "human_score": float(s["score"]),
                "botbot_score": bb,
                "difference": None if bb is None else float(s["score"]) - bb,
                "tens": s["tens"][side],
                "record": record["_file"],
                **({"label": s["label"]} if experiment.identifying and "label" in s else {}),
            }
        )
    rows.sort(key=lambda r: (r["participant"], r["deal_index"]))
    return rows


def write_dataset(rows: Sequence[dict[str, Any]], out: Path | None) -> str:
    """Write the rows as CSV (``.csv``) or JSON Lines (anything else); returns the text."""
    if out is not None and out.suffix.lower() == ".csv":
        buf = io.StringIO()
        columns = list(COLUMNS) + (["label"] if any("label" in r for r in rows) else [])
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        text = buf.getvalue()
    else:
        text = "".join(json.dumps(r) + "\n" for r in rows)
    if out is not None:
        write_atomic(out, text)
    return text


def read_dataset(path: Path) -> list[dict[str, Any]]:
    """Rows written by :func:`write_dataset` (CSV or JSON Lines)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".csv":
        rows: list[dict[str, Any]] = []
        for row in csv.DictReader(io.StringIO(text)):
            out: dict[str, Any] = dict(row)
            for key in ("human_score", "botbot_score", "difference"):
                out[key] = float(row[key]) if row[key] not in ("", None) else None
            for key in ("deal_index", "seat", "side", "tens"):
                out[key] = int(row[key])
            rows.append(out)
        return rows
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# ---------------------------------------------------------------------- analysis
@dataclass(frozen=True)
class PartnerResult:
    """One partner's figures: see :func:`analyse`."""

    partner: str
    participants: int
    hands: int
    human: Estimate  # the human+bot side's score per hand
    botbot: Estimate  # the bot+bot side's on the same deals and seats
    difference: Estimate  # human minus bot+bot
    per_participant: dict[str, float] = field(default_factory=dict)  # mean difference of each


def analyse(
    rows: Iterable[dict[str, Any]], partners: Sequence[str] = (), confidence: float = 0.95
) -> list[PartnerResult]:
    """Per partner (in the order of ``partners``, else by name), the human+bot side's score, the
    bot+bot side's on the same deals, and the difference, each with its interval over
    participants (:func:`agents.playing.stats.ratio_ci`: a participant's hands are one unit).
    Rows without a baseline are left out."""
    by_partner: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for r in rows:
        if r.get("botbot_score") is None:
            continue
        by_partner.setdefault(r["partner"], {}).setdefault(r["participant"], []).append(r)
    out = []
    order = [q for q in partners if q in by_partner] + sorted(q for q in by_partner if q not in partners)
    for partner in order:
        people = by_partner[partner]
        names = sorted(people)
        n = np.array([len(people[p]) for p in names], dtype=float)
        human = np.array([sum(r["human_score"] for r in people[p]) for p in names])
        bot = np.array([sum(r["botbot_score"] for r in people[p]) for p in names])
        out.append(
            PartnerResult(
                partner=partner,
                participants=len(names),
                hands=int(n.sum()),
                human=ratio_ci(human, n, confidence),
                botbot=ratio_ci(bot, n, confidence),
                difference=ratio_ci(human - bot, n, confidence),
                per_participant={p: float((h - b) / k) for p, h, b, k in zip(names, human, bot, n, strict=True)},
            )
        )
    return out


def _interval(e: Estimate, sign: str = "") -> str:
    """``value [low, high]`` (``sign`` "+": with the sign shown, for a difference)."""
    if not np.isfinite(e.se):  # one participant: no spread to measure
        return f"{e.value:{sign}.3f} [no interval]"
    return f"{e.value:{sign}.3f} [{e.low:{sign}.3f}, {e.high:{sign}.3f}]"


def analysis_table(results: Sequence[PartnerResult]) -> str:
    """The analysis as a plain-text table, one row per partner."""
    rows = [
        [
            r.partner,
            str(r.participants),
            str(r.hands),
            _interval(r.human),
            _interval(r.botbot),
            _interval(r.difference, "+"),
        ]
        for r in results
    ]
    headers = ["partner", "people", "hands", "human+bot (95%)", "bot+bot same deals", "difference"]
    return format_table(headers, rows, align="lrrrrr")


def analysis_rows(results: Sequence[PartnerResult]) -> list[dict[str, Any]]:
    """The analysis as plain dicts (a data frame's rows)."""
    out = []
    for r in results:
        row: dict[str, Any] = {"partner": r.partner, "participants": r.participants, "hands": r.hands}
        for name, e in (("human", r.human), ("botbot", r.botbot), ("difference", r.difference)):
            row.update({name: e.value, f"{name}_low": e.low, f"{name}_high": e.high})
        out.append(row)
    return out


# ---------------------------------------------------------------------- simulation
def simulate(study: Study, people: int, player: str = "medium", seed: int = 0) -> list[Participant]:
    """Enrol ``people`` participants who consent and play every hand with the bot
    ``player`` deciding for the person's seat from that seat's view only: a dry run of
    the study's own code (dealing, turns, records) without a browser. With ``seed`` 0
    the player is seeded as the arena seeds that seat, so ``player`` equal to the
    partner reproduces the bot+bot baseline hand for hand (a check of the deals);
    another ``seed`` gives each participant a player of their own."""
    from agents.registry import make_agent

    done = []
    for _ in range(people):
        p = study.enrol()
        study.consent(p, True)
        hand = study.current(p)
        while hand is not None:
            game = hand.game
            base = study.experiment.deal_set.seed if seed == 0 else seed_of(seed, p.number)
            me = make_agent(player, study.experiment.rules, agent_seed(base, hand.index, game.human))
            _play_out(study, hand, me)
            study.after_change(p, hand)
            hand = study.next_hand(p)
        done.append(p)
    return done


def _play_out(study: Study, hand: StudyHand, me: Agent) -> None:
    """Play the study hand out through the game (its records and log), ``me`` deciding
    for the person's seat from that seat's view only, as every seat decides."""
    game = hand.game

    def apply(seat: int, action: int) -> None:
        if seat == game.human:
            game.play(action_text(action))  # as the person's move arrives: R6 text
        else:
            game.apply_bot(seat, action)

    play(
        game.match,
        lambda seat, view: (me if seat == game.human else game.bots[seat]).act(view),
        lambda _match: game.draw(),
        over=lambda _match: study.hand_over(hand),
        apply=apply,
    )


# ---------------------------------------------------------------------- the command
def main(argv: list[str] | None = None) -> int:
    from dehla_env.commands import typed_command

    parser = argparse.ArgumentParser(
        prog=typed_command("agents.web.study"),
        description="A study of human-bot partnership: check the experiment file, export the data, analyse it. "
        "Serve it with: python -m agents.web --study FILE",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("check", "check an experiment file and say what the study will do"),
        ("export", "write the dataset"),
        ("analyse", "print the analysis per partner"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("file", type=Path)
        cmd.add_argument("--policy-dir", type=Path, default=None, help="the server's --policy-dir, if any")
        if name != "check":
            cmd.add_argument("--record-dir", type=Path, default=None, help="the server's --record-dir (default as it)")
        if name == "export":
            cmd.add_argument("--out", type=Path, default=None, help="data.csv or data.jsonl (default: stdout, JSONL)")
        if name == "analyse":
            cmd.add_argument("--data", type=Path, default=None, help="an exported dataset instead of the records")
    args = parser.parse_args(argv)
    try:
        experiment = load_experiment(args.file, Catalogue(policy_files(args.policy_dir)))
    except ExperimentError as e:
        print(str(e), file=sys.stderr)
        return 2
    if args.command == "check":
        print(
            f"{experiment.id}: {experiment.title}\n  rules {experiment.rules}; deals {experiment.offset}.."
            f"{experiment.offset + experiment.count - 1} of {experiment.deal_set.preset.name} "
            f"({experiment.deal_set.version}); {experiment.hands} hands per participant\n"
            f"  partners {', '.join(experiment.partners)}; opponents {experiment.opponents}; "
            f"{experiment.participants} links, enrolment {experiment.enrolment} "
            f"(at most {experiment.max_participants}); identifying: {'yes' if experiment.identifying else 'no'}"
        )
        return 0
    folder = study_folder(experiment, args.record_dir)
    if args.command == "analyse" and args.data is not None:
        rows = read_dataset(args.data)
    else:
        rows = dataset(experiment, folder)
    if args.command == "export":
        text = write_dataset(rows, args.out)
        if args.out is None:
            sys.stdout.write(text)
        else:
            print(f"{len(rows)} hands written to {args.out}", file=sys.stderr)
        return 0
    print(analysis_table(analyse(rows, experiment.partners)))
    return 0


__all__ = [
    "COLUMNS",
    "Participant",
    "PartnerResult",
    "Study",
    "StudyFull",
    "StudyHand",
    "StudyRefusal",
    "analyse",
    "analysis_rows",
    "analysis_table",
    "baseline",
    "dataset",
    "main",
    "open_study",
    "read_dataset",
    "read_records",
    "simulate",
    "study_folder",
    "write_dataset",
]


if __name__ == "__main__":
    raise SystemExit(main())
