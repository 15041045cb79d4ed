"""R6 conformance replay: ``python -m dehla_env.replay [FILE]``.

Reads R6 records, one JSON object per line (JSON Lines), from FILE or, without FILE or
with ``-``, from standard input, and writes one result object per input line to
standard output in the R6 output format (RULES.md R6). A record stops at its first
illegal or malformed move; the output then describes the state before that move.
With ``--check-seed`` each result also has ``seed_check``: ``"ok"`` when the record's
revealed ``seed`` hashes to its ``commitment`` (SHA-256 of the decimal digits) and every
deal and R1.4 draw follows from it, so the deals were fixed before play; else why not.

Every input line gets exactly one output line, whatever it holds: a blank line, bytes
that are not UTF-8, text that is not JSON or not a record each get a result whose
``error`` says why (with ``"hand": null, "move": null``). The input is read as bytes,
line by line, so one bad line cannot spoil another; the output is strict JSON in
ASCII. The record logic, the line rules and the ``id`` policy are in
:mod:`dehla_env.records`; this module is only the command line.

Reading is bounded, whatever the input: a line longer than :data:`MAX_LINE_BYTES` gets
one error result and is skipped without being held (a record of a long match is a few
hundred kilobytes), and the input ends with an error after :data:`MAX_INPUT_BYTES`. A
FILE must be a regular file: a directory, a device (``/dev/zero``), a FIFO or a socket
is refused with one line before it is read (pipe such input to standard input, where
the bounds apply).

Exit status::

  0    every input line was read and its result written (a record with an "error"
       included: an error is a result, not a failure of the command)
  1    the results could not all be written: standard output is closed or a write
       failed (a broken pipe, as under "| head", is silent; other failures print one
       line on stderr)
  2    a bad command line (the usage and the error on stderr), or the input cannot
       be opened or read (a missing file, a directory, a device) or is larger than
       MAX_INPUT_BYTES: one line on stderr; the results of lines read before a read
       failure are written
  130  interrupted (Ctrl-C)
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from typing import IO, Any, TextIO

from .commands import silence_stdout, typed_command
from .records import _bad_line, dumps_result, replay_line

PROG = typed_command("dehla_env.replay")
EXIT_OK = 0
EXIT_OUTPUT = 1  # the results could not all be written
EXIT_INPUT = 2  # bad command line (argparse's status too), input not readable
EXIT_INTERRUPTED = 130

_DOC = __doc__ or ""  # None under python -OO

#: The longest input line read as a record, newline included (a record of a whole
#: long match is some hundreds of kilobytes); a longer line gets one error result.
MAX_LINE_BYTES = 4 * 1024 * 1024
#: The most input read in all; the input ends with an error (exit status 2) beyond it.
MAX_INPUT_BYTES = 1024 * 1024 * 1024
#: How much of an over-long line is read at a time while it is skipped.
_SKIP_CHUNK = 1024 * 1024

_FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}


class _InputTooLarge(Exception):
    """The input went past :data:`MAX_INPUT_BYTES`."""


class _TooLong:
    """Stands for an input line over :data:`MAX_LINE_BYTES` (its bytes are not kept)."""


_TOO_LONG = _TooLong()


def bounded_lines(
    stream: Any, max_line: int | None = None, max_total: int | None = None
) -> Iterator[bytes | str | _TooLong]:
    """The lines of ``stream`` (binary, or text for a stand-in stdin), each with its
    newline, read at most ``max_line`` (default :data:`MAX_LINE_BYTES`) at a time: a
    longer line is skipped to its end in chunks and yields :data:`_TOO_LONG`, so no
    line is ever held whole. Raises :class:`_InputTooLarge` once more than
    ``max_total`` (default :data:`MAX_INPUT_BYTES`) has been read."""
    max_line = MAX_LINE_BYTES if max_line is None else max_line
    max_total = MAX_INPUT_BYTES if max_total is None else max_total
    total = 0
    while True:
        line = stream.readline(max_line + 1)
        if not line:
            return
        total += len(line)
        if total > max_total:
            raise _InputTooLarge
        if len(line) <= max_line:
            yield line
            continue
        while line[-1:] not in ("\n", b"\n"):
            line = stream.readline(_SKIP_CHUNK)
            if not line:
                break
            total += len(line)
            if total > max_total:
                raise _InputTooLarge
        yield _TOO_LONG


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


def _parser() -> argparse.ArgumentParser:
    status = _DOC.partition("Exit status:")[2]
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="R6 conformance replay: one R6 result object (JSON) per input line of R6 records.",
        epilog="exit status:" + status if status else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", metavar="FILE", help="R6 records, JSON Lines (default or -: standard input)")
    parser.add_argument("--check-seed", action="store_true", help="check each deal against the revealed seed")
    return parser


class _NotRegular(OSError):
    """FILE names something other than a regular file."""


def _open_input(path: str | None) -> tuple[Any, IO[bytes] | None, str]:
    """The input stream, the file to close afterwards (None for stdin), its name."""
    if path is not None and path != "-":
        kind = stat.S_IFMT(os.stat(path).st_mode)  # before opening: a FIFO would block the open
        if kind != stat.S_IFREG:
            what = _FILE_KINDS.get(kind, "not a regular file")
            raise _NotRegular(f"{what}, not a file of R6 records (pipe such input to standard input)")
        f = open(path, "rb")  # raises OSError: the caller reports it
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # replaced since the check
            f.close()
            raise _NotRegular("not a regular file")
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
    lines = bounded_lines(lines)
    try:
        return _replay(lines, name, out, args.check_seed)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    finally:
        if to_close is not None:
            to_close.close()


def _replay(lines: Iterable[bytes | str | _TooLong], name: str, out: TextIO, seed: bool = False) -> int:
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
            except _InputTooLarge:
                _complain(f"{name}: more than {MAX_INPUT_BYTES} bytes, the most read; stopped after {n} line(s)")
                status = EXIT_INPUT
                break
            if isinstance(line, _TooLong):
                result = _bad_line(f"not a record: a line longer than {MAX_LINE_BYTES} bytes")
            else:
                result = replay_line(line, first=n == 0, seed=seed)
            out.write(dumps_result(result) + "\n")
            n += 1
        out.flush()
    except BrokenPipeError:
        silence_stdout(out)
        return EXIT_OUTPUT
    except (OSError, ValueError) as e:  # ENOSPC, or an output stream already closed
        _complain(f"cannot write results: {getattr(e, 'strerror', None) or e}")
        return EXIT_OUTPUT
    return status


if __name__ == "__main__":
    raise SystemExit(main())
