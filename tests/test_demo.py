"""python -m dehla_env.demo: a seeded hand printed; a bad command line is one line."""

from __future__ import annotations

import pytest

from dehla_env.demo import main


def test_a_seeded_hand_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--rules", "court-piece", "--seed", "3"]) == 0
    assert "R6 result:" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--seed", "-1"], ["--option", "kots=x"], ["--option", "kots"], ["--rules", "x"]])
def test_a_bad_command_line_is_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("python -m dehla_env.demo: error:")
