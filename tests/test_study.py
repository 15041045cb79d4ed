"""The study mode (agents.web.study): the experiment file's checks, consent, links that act
for their own participant and seat only, and a small study driven through HTTP whose
records replay, whose dataset pairs each hand with the bot+bot result on the same deal,
and whose analysis has a row per partner."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install dehla[web]")
try:  # starlette's TestClient runs on httpx2 (or, deprecated, httpx)
    import httpx2  # noqa: F401
except ImportError:
    pytest.importorskip("httpx", reason="starlette's TestClient needs httpx2: pip install httpx2")

from starlette.testclient import TestClient  # noqa: E402

from agents.web.experiment import MAX_FILE_BYTES, ExperimentError, check_experiment, load_experiment  # noqa: E402
from agents.web.server import ServerConfig, create_app  # noqa: E402
from agents.web.study import (  # noqa: E402
    Study,
    analyse,
    analysis_table,
    dataset,
    main,
    read_dataset,
    simulate,
    study_folder,
    write_dataset,
)
from agents.web.study_server import attach_study  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LOCAL = "http://127.0.0.1"
UNLIMITED: dict[str, Any] = {"requests_per_second": None, "creates_per_minute": None, "games_per_client": 1000}

GOOD: dict[str, Any] = {
    "id": "pilot",
    "title": "Playing with a bot partner",
    "consent": "You will play a few hands with a bot partner. Nothing that identifies you is kept.",
    "rules": "dehla",
    "partners": ["hard", "easy"],
    "opponents": "medium",
    "hands": 3,
    "deals": {"offset": 20, "count": 3},
    "participants": 3,
    "enrolment": "open",
}


def write(tmp_path: Path, text: str, name: str = "study.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------- the file
def test_a_good_file_reads_as_yaml_and_as_json(tmp_path: Path) -> None:
    yaml = pytest.importorskip("yaml")
    a = load_experiment(write(tmp_path, yaml.safe_dump(GOOD)))
    b = load_experiment(write(tmp_path, json.dumps(GOOD), "study.json"))
    assert a == b
    assert a.partners == ("hard", "easy") and a.deal_indices(1) == [20, 21, 22]
    assert a.identifying is False and a.deal_set.preset.name == "dehla"


def test_an_experiment_that_names_no_partner_plays_with_the_shipped_policy() -> None:
    data = {k: v for k, v in GOOD.items() if k != "partners"}
    assert check_experiment(data, "study.yaml").partners == ("policy:dehla",)
    chosen = check_experiment({**data, "options": {"trump": "chosen"}}, "study.yaml")
    assert chosen.partners == ("policy:dehla-chosen",)


@pytest.mark.parametrize(
    "change, field",
    [
        ({"colour": "red"}, "colour"),
        ({"id": "Bad Id!"}, "id"),
        ({"title": ""}, "title"),
        ({"rules": "bridge"}, "rules"),
        ({"options": {"trump": "sideways"}}, "options"),
        ({"options": {"max_hands": 2}}, "rules"),  # no shipped deal set for those rules
        ({"partners": []}, "partners"),
        ({"partners": ["hard", "nonsense"]}, "partners[1]"),
        ({"partners": ["policy:/etc/passwd"]}, "partners[0]"),
        ({"opponents": 3}, "opponents"),
        ({"hands": 0}, "hands"),
        ({"hands": 5}, "hands"),  # more than deals.count
        ({"deals": {"offset": 4999, "count": 3}}, "count"),
        ({"deals": {"offset": -1}}, "offset"),
        ({"deals": {"first": 0}}, "deals"),
        ({"enrolment": "anyone"}, "enrolment"),
        ({"identifying": "no thanks"}, "identifying"),
        ({"participants": True}, "participants"),
    ],
)
def test_every_bad_field_is_one_line_naming_it(change: dict[str, Any], field: str) -> None:
    data = {**GOOD, **change}
    with pytest.raises(ExperimentError) as e:
        check_experiment(data, "study.yaml")
    text = str(e.value)
    assert "\n" not in text and text.startswith(f"study.yaml: {field}:"), text


def test_yaml_aliases_are_refused_before_they_expand(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n'
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        bomb += f"{name}: &{name} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
    with pytest.raises(ExperimentError, match="aliases"):
        load_experiment(write(tmp_path, bomb))


def test_size_duplicates_and_junk_are_refused(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    with pytest.raises(ExperimentError, match="larger than"):
        load_experiment(write(tmp_path, "title: " + "x" * MAX_FILE_BYTES))
    with pytest.raises(ExperimentError, match="id: given twice"):
        load_experiment(write(tmp_path, "id: a\nid: b\n"))
    with pytest.raises(ExperimentError, match="given twice"):
        load_experiment(write(tmp_path, '{"id": "a", "id": "b"}', "s.json"))
    with pytest.raises(ExperimentError, match="not valid YAML"):
        load_experiment(write(tmp_path, "id: [unclosed\n"))
    with pytest.raises(ExperimentError, match="must be a mapping"):
        load_experiment(write(tmp_path, "- a list\n"))
    with pytest.raises(ExperimentError, match="cannot read"):
        load_experiment(tmp_path / "missing.yaml")


# ---------------------------------------------------------------------- the server
@pytest.fixture
def served(tmp_path: Path) -> Any:
    path = write(tmp_path, json.dumps(GOOD), "study.json")
    config = ServerConfig(record_dir=tmp_path / "records", bot_delay=0.0, **UNLIMITED)
    app = create_app(config)
    study = Study(load_experiment(path), study_folder(load_experiment(path), config.record_dir))
    lines = attach_study(app, study, LOCAL + ":8000")
    assert sum("/study/" in line for line in lines) == 4  # three links and the open enrolment
    with TestClient(app, base_url=LOCAL) as client:
        yield client, study, path


def tokens(study: Study) -> list[str]:
    return [p.token for p in sorted(study.participants.values(), key=lambda p: p.number)]


def test_no_consent_no_play(served: Any) -> None:
    client, study, _ = served
    a, b = tokens(study)[:2]
    state = client.get(f"/api/study/{a}").json()
    assert state["consent"] is None and state["table"] is None and state["consent_text"] == GOOD["consent"]
    for route in ("move", "advance", "next"):
        r = client.post(f"/api/study/{a}/{route}", json={"move": "TS"} if route == "move" else {})
        assert r.status_code == 403, (route, r.text)
    r = client.post(f"/api/study/{b}/consent", json={"agree": False})
    assert r.status_code == 200 and r.json()["table"] is None and r.json()["consent"] == "no"
    assert client.post(f"/api/study/{b}/consent", json={"agree": True}).status_code == 409  # a no is final
    assert client.post(f"/api/study/{b}/advance", json={}).status_code == 403
    assert client.post(f"/api/study/{a}/consent", json={"agree": "yes"}).status_code == 400
    assert not (study.folder / "hands").exists()


def test_a_link_acts_for_its_own_participant_and_seat_only(served: Any) -> None:
    client, study, _ = served
    a, b = tokens(study)[:2]
    for t in (a, b):
        assert client.post(f"/api/study/{t}/consent", json={"agree": True, "label": "Ann"}).status_code == 200
    assert all(p.label is None for p in study.participants.values())  # identifying: false keeps no name
    before_b = client.get(f"/api/study/{b}").json()["table"]
    state = drive_bots(client, a, client.get(f"/api/study/{a}").json())
    table = state["table"]
    me = table["seat"]
    other = (me + 1) % 4
    r = client.post(f"/api/study/{a}/move", json={"move": pick(table, random.Random(0)), "seat": other})
    assert r.status_code == 409 and r.json()["seat"] == other
    assert client.post(f"/api/study/{a}/move", json={"move": "TS", "seat": (me + 2) % 4}).status_code == 409
    assert client.get(f"/api/study/{b}").json()["table"]["version"] == before_b["version"]  # untouched
    assert client.post("/api/study/not-a-token/move", json={"move": "TS"}).status_code == 404
    # the study's hands are nowhere in the game routes
    assert client.get("/api/games").json()["games"] == []
    assert client.get(f"/api/games/{table['id']}").status_code == 404
    assert client.post(f"/api/games/{table['id']}/move", json={"move": "TS"}).status_code == 404
    assert all(seat["agent"] is None for seat in table["seats"]) and table["record"] is None


def test_open_enrolment_makes_anonymous_participants(served: Any) -> None:
    client, study, _ = served
    r = client.post("/api/study/enrol", json={}, headers={"User-Agent": "Ann's laptop", "X-Forwarded-For": "1.2.3.4"})
    assert r.status_code == 201
    made = r.json()
    assert made["participant"].startswith("p-") and made["link"] == f"/study/{made['token']}"
    assert client.get(made["link"]).status_code == 200
    assert client.get("/study/join").status_code == 200
    text = (study.folder / "participants.json").read_text()
    assert "Ann" not in text and "1.2.3.4" not in text


def pick(table: dict[str, Any], rng: random.Random) -> str:
    """A bot for the person's seat: a random legal move of the table the API returned
    (that seat's own view, nothing else)."""
    moves = [c["text"] for c in table["hand"] if c["legal"]] + [a["move"] for a in table["actions"] if a["legal"]]
    return rng.choice(moves)


def drive_bots(client: Any, token: str, state: dict[str, Any]) -> dict[str, Any]:
    while state["table"] is not None and state["table"]["status"] == "bot":
        r = client.post(f"/api/study/{token}/advance", json={"version": state["table"]["version"]})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def test_a_simulated_study_through_http(served: Any, tmp_path: Path) -> None:
    client, study, path = served
    for k, token in enumerate(tokens(study)):
        rng = random.Random(k)
        state = client.post(f"/api/study/{token}/consent", json={"agree": True}).json()
        while not state["finished"]:
            state = drive_bots(client, token, state)
            table = state["table"]
            if table["status"] == "your-turn":
                r = client.post(
                    f"/api/study/{token}/move", json={"move": pick(table, rng), "version": table["version"]}
                )
            else:
                assert table["status"] in ("hand-over", "match-over")
                assert client.post(f"/api/study/{token}/move", json={"move": "TS"}).status_code == 409
                r = client.post(f"/api/study/{token}/next")
            assert r.status_code == 200, r.text
            state = r.json()
        assert state["progress"] == {"done": 3, "total": 3} and state["table"] is None
    records = sorted((study.folder / "hands").glob("*.jsonl"))
    assert len(records) == 9
    joined = "".join(p.read_text() for p in records)
    out = subprocess.run(
        [sys.executable, "-m", "dehla_env.replay"], input=joined, capture_output=True, text=True, cwd=ROOT, check=True
    )
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(results) == 9 and all(r["error"] is None and r["hands"][0]["complete"] for r in results)
    first = json.loads(records[0].read_text())
    assert first["study"]["experiment"] == "pilot" and first["study"]["partner"] in GOOD["partners"]
    assert first["study"]["participant"].startswith("p-") and "token" not in json.dumps(first)
    rows = dataset(study.experiment, study.folder)
    assert len(rows) == 9 and {r["deal_index"] for r in rows} == {20, 21, 22}
    assert all(r["botbot_score"] in (0.0, 0.5, 1.0) for r in rows)
    assert {r["partner"] for r in rows} == {"hard", "easy"}
    for suffix in (".csv", ".jsonl"):
        out_path = tmp_path / f"data{suffix}"
        write_dataset(rows, out_path)
        assert read_dataset(out_path) == rows
    results_by_partner = analyse(rows, study.experiment.partners)
    assert [r.partner for r in results_by_partner] == ["hard", "easy"]
    assert results_by_partner[0].participants == 2 and results_by_partner[0].hands == 6
    table = analysis_table(results_by_partner)
    assert "hard" in table and "easy" in table and "difference" in table
    # the command reads the same folder
    assert main(["export", str(path), "--record-dir", str(tmp_path / "records"), "--out", str(tmp_path / "x.csv")]) == 0
    assert main(["analyse", str(path), "--data", str(tmp_path / "x.csv")]) == 0


def test_the_bot_in_the_persons_seat_reproduces_the_baseline(tmp_path: Path) -> None:
    """The study's deals, dealers, R1.4 draws, seats and bot seeds are the arena's: a
    participant who plays as the partner bot would scores exactly the bot+bot result."""
    experiment = check_experiment({**GOOD, "participants": 0, "hands": 4, "deals": {"offset": 7, "count": 4}})
    study = Study(experiment, tmp_path / "s")
    simulate(study, 2, player="hard")
    rows = dataset(experiment, study.folder)
    hard = [r for r in rows if r["partner"] == "hard"]
    assert len(hard) == 4 and all(r["difference"] == 0.0 for r in hard)


def test_the_check_command(tmp_path: Path, capsys: Any) -> None:
    path = write(tmp_path, json.dumps(GOOD), "study.json")
    assert main(["check", str(path)]) == 0
    assert "pilot" in capsys.readouterr().out
    assert main(["check", str(write(tmp_path, json.dumps({**GOOD, "hands": "x"}), "bad.json"))]) == 2
    assert "bad.json: hands:" in capsys.readouterr().err
