"""Reading a file a user gave us: a config, an experiment file, a ``--override`` value.

Such text is untrusted: a server others can reach reads experiment files, and a config
may be a wrong file (a checkpoint, a log, a FIFO). So every reader here

- opens regular files only (a FIFO or a device would block or never end), and reads at
  most the caller's limit plus one byte, so a huge file costs nothing to refuse;
- decodes UTF-8 (a byte-order mark allowed) and says where it is not;
- parses YAML with PyYAML's *safe* loader (no Python objects are built), refusing
  aliases before they are expanded (anchors and aliases let a file of a kilobyte stand
  for billions of nodes: the "billion laughs" bomb) and a key given twice (the safe
  loader would silently keep the last);
- parses JSON with the same two refusals that apply (a key given twice; ``NaN`` and the
  infinities, which are not JSON).

Every problem is one :class:`UserFileError` naming the file (or setting) and the line;
callers re-raise it as their own error type.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any


class UserFileError(ValueError):
    """A user's file or text that cannot be read, in one line naming where."""


class NoSuchUserFile(UserFileError):
    """The file does not exist (a caller may say what the name could have meant)."""


def read_text(path: Path, limit: int, what: str) -> str:
    """The text of the regular file ``path``, at most ``limit`` bytes of UTF-8; ``what``
    names the kind of file in messages (``a config``)."""
    data = read_regular_file(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UserFileError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_regular_file(p: Path, limit: int, what: str) -> bytes:
    """The bytes of ``p`` if it is a regular file of at most ``limit`` bytes (``what``
    names the kind of file in messages: ``a checkpoint file``). Opened without blocking
    and checked on the open descriptor, so a FIFO, a device or a socket (or a file
    swapped for one after a check) is refused at once instead of hanging the reader."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise NoSuchUserFile(f"{p}: cannot read it (no such file)") from None
    except IsADirectoryError:
        raise UserFileError(f"{p}: is a directory, not {what}") from None
    except OSError as e:
        raise UserFileError(f"{p}: cannot read it ({e.strerror or one_line(e)})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise UserFileError(f"{p}: is a directory, not {what}")
        if not stat.S_ISREG(st.st_mode):
            raise UserFileError(f"{p}: not a regular file (pipes, devices and sockets are never read)")
        if st.st_size > limit:
            raise UserFileError(f"{p}: {st.st_size} bytes, larger than {limit} bytes for {what}")
        chunks: list[bytes] = []
        total = 0
        while chunk := os.read(fd, 1 << 20):
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise UserFileError(f"{p}: larger than {limit} bytes for {what}")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_yaml(text: str, where: str) -> Any:
    """The value of the YAML ``text``; :class:`UserFileError` naming ``where`` for an
    alias, a key given twice, nesting too deep for the parser, or text that is not YAML."""
    try:
        import yaml
    except ImportError:
        raise UserFileError(f"{where}: reading YAML needs PyYAML (pip install pyyaml), or write JSON") from None

    class SafeLoader(yaml.SafeLoader):
        """PyYAML's safe loader, refusing aliases and keys given twice (see the module)."""

        def compose_node(self, parent: Any, index: Any) -> Any:  # PyYAML's own signature, untyped
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                line = event.start_mark.line + 1
                raise UserFileError(f"{where}: line {line}: YAML aliases (*{event.anchor}) are not accepted")
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _value in node.value:
                key = self.construct_object(key_node, deep=deep)
                if isinstance(key, str) and key in seen:
                    raise UserFileError(f"{where}: line {key_node.start_mark.line + 1}: {key}: given twice")
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    try:
        return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader, aliases refused
    except UserFileError:
        raise
    except RecursionError:
        raise UserFileError(f"{where}: not valid YAML: nested too deep") from None
    except yaml.YAMLError as e:
        raise UserFileError(f"{where}: not valid YAML: {one_line(e)[:200]}") from None


def read_json(text: str, where: str) -> Any:
    """The value of the JSON ``text``; :class:`UserFileError` naming ``where`` for a key
    given twice, ``NaN``/``Infinity``, nesting too deep, or text that is not JSON."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise UserFileError(f"{where}: {key}: given twice")
            out[key] = value
        return out

    def constant(word: str) -> Any:
        raise UserFileError(f"{where}: {word} is not a JSON number")

    try:
        return json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except UserFileError:
        raise
    except RecursionError:
        raise UserFileError(f"{where}: nested too deep") from None
    except ValueError as e:
        raise UserFileError(f"{where}: not JSON ({str(e)[:120]})") from None


def one_line(e: BaseException, limit: int = 300) -> str:
    """An error's message on one line, at most ``limit`` characters."""
    text = " ".join(str(e).split()) or type(e).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
