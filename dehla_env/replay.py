"""R6 conformance replay: ``python -m dehla_env.replay [FILE]``.

Reads R6 records, one JSON object per line (JSON Lines), from FILE or, without FILE or
with ``-``, from standard input, and writes one result object per input line to
standard output in the R6 output format (RULES.md R6). A record stops at its first
illegal or malformed move; the output then describes the state before that move.

Every input line gets exactly one output line, whatever it holds: a blank line, bytes
that are not UTF-8, text that is not JSON or not a record each get a result whose
``error`` says why (with ``"hand": null, "move": null``). The input is read as bytes,
line by line, so one bad line cannot spoil another; the output is strict JSON in
ASCII. The record logic, the line rules and the ``id`` policy are in
:mod:`dehla_env.records`; this module is only the command line.

Exit status::

  0    every input line was read and its result written (a record with an "error"
       included: an error is a result, not a failure of the command)
  1    the results could not all be written: standard output is closed or a write
       failed (a broken pipe, as under "| head", is silent; other failures print one
       line on stderr)
  2    a bad command line (the usage and the error on stderr), or the input cannot
       be opened or read (a missing file, a directory): one line on stderr; the
       results of lines read before a read failure are written
  130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from typing import IO, TextIO

from .commands import typed_command
from .records import dumps_result, replay_line

PROG = typed_command("dehla_env.replay")
EXIT_OK = 0
EXIT_OUTPUT = 1  # the results could not all be written
EXIT_INPUT = 2  # bad command line (argparse's status too), input not readable
EXIT_INTERRUPTED = 130

_DOC = __doc__ or ""  # None under python -OO


def _complain(message: str) -> None:
    """One line on stderr, if there is a stderr to write to."""
    err = sys.stderr
    if err is None:
        return
    try:
        err.write(f"{PROG}: {message}\n")
        err.flush()
    except (OSError, ValueError):
        pass


def _silence_stdout(out: TextIO) -> None:
    """After a broken pipe: point fd 1 at /dev/null, so the interpreter's final flush of
    the real stdout cannot fail with a traceback of its own ("Exception ignored ...")."""
    if out is not sys.__stdout__:
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def _parser() -> argparse.ArgumentParser:
    status = _DOC.partition("Exit status:")[2]
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="R6 conformance replay: one R6 result object (JSON) per input line of R6 records.",
        epilog="exit status:" + status if status else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", metavar="FILE", help="R6 records, JSON Lines (default or -: standard input)")
    return parser


def _open_input(path: str | None) -> tuple[Iterable[bytes | str], IO[bytes] | None, str]:
    """The input's lines, the file to close afterwards (None for stdin), its name."""
    if path is not None and path != "-":
        f = open(path, "rb")  # raises OSError: the caller reports it
        return f, f, path
    stdin = sys.stdin
    if stdin is None:
        raise OSError("standard input is closed")
    # Bytes, so a line that is not UTF-8 is that line's error; a stand-in stdin without
    # a buffer (a test's StringIO) is read as the text it is.
    return getattr(stdin, "buffer", stdin), None, "standard input"


def main(argv: list[str] | None = None, stdout: TextIO | None = None) -> int:
    """Run the command line; returns the exit status (see the module docstring)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # --help (0) or a bad command line (2): argparse has said why
        return e.code if isinstance(e.code, int) else EXIT_INPUT
    out = stdout if stdout is not None else sys.stdout
    if out is None:
        _complain("cannot write results: standard output is closed")
        return EXIT_OUTPUT
    try:
        lines, to_close, name = _open_input(args.file)
    except OSError as e:
        _complain(f"cannot read {args.file or 'standard input'}: {e.strerror or e}")
        return EXIT_INPUT
    try:
        return _replay(lines, name, out)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        if to_close is not None:
            to_close.close()


def _replay(lines: Iterable[bytes | str], name: str, out: TextIO) -> int:
    """Write one result per line of ``lines``; the exit status."""
    status = EXIT_OK
    reader = iter(lines)
    n = 0
    try:
        while True:
            try:
                line = next(reader)
            except StopIteration:
                break
            except OSError as e:  # EISDIR for a directory on stdin, EIO, ...
                _complain(f"cannot read {name} after {n} line(s): {e.strerror or e}")
                status = EXIT_INPUT
                break
            out.write(dumps_result(replay_line(line, first=n == 0)) + "\n")
            n += 1
        out.flush()
    except BrokenPipeError:
        _silence_stdout(out)
        return EXIT_OUTPUT
    except (OSError, ValueError) as e:  # ENOSPC, or an output stream already closed
        _complain(f"cannot write results: {getattr(e, 'strerror', None) or e}")
        return EXIT_OUTPUT
    return status


if __name__ == "__main__":
    raise SystemExit(main())
