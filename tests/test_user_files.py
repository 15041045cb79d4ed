"""A file a user gives us is read without trusting it (agents/user_files.py): regular
files only, a size cap read no further than the cap, UTF-8, and YAML/JSON with no
aliases, no key given twice and no NaN."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agents.user_files import UserFileError, read_json, read_text, read_yaml


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(UserFileError, match="not a regular file"):
        read_text(fifo, 100, "a config")  # opening it would block: the test would hang


def test_a_file_over_the_limit_is_refused_and_text_must_be_utf8(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * 101)
    with pytest.raises(UserFileError, match="larger than 100 bytes"):
        read_text(big, 100, "a config")
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(b"a: \xff\n")
    with pytest.raises(UserFileError, match="not UTF-8"):
        read_text(bad, 100, "a config")
    with pytest.raises(UserFileError, match="cannot read it"):
        read_text(tmp_path / "missing.yaml", 100, "a config")


def test_yaml_aliases_are_refused_before_they_expand() -> None:
    bomb = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi")
    )
    with pytest.raises(UserFileError, match=r"line 2: YAML aliases \(\*a\)"):
        read_yaml(bomb, "bomb.yaml")


def test_a_key_given_twice_is_an_error_not_a_silent_overwrite() -> None:
    with pytest.raises(UserFileError, match="line 2: lr: given twice"):
        read_yaml("lr: 0.1\nlr: 0.2\n", "c.yaml")
    with pytest.raises(UserFileError, match="lr: given twice"):
        read_json('{"lr": 0.1, "lr": 0.2}', "c.json")


def test_json_has_no_nan_and_junk_is_named() -> None:
    with pytest.raises(UserFileError, match="NaN is not a JSON number"):
        read_json('{"lr": NaN}', "c.json")
    with pytest.raises(UserFileError, match="c.yaml: not valid YAML"):
        read_yaml("a: [unclosed\n", "c.yaml")
    assert read_yaml("a: [1, 2]\nb: {c: x}\n", "c.yaml") == {"a": [1, 2], "b": {"c": "x"}}
