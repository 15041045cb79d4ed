"""``python -m agents.arena``: the command line (:mod:`agents.arena.cli`)."""

from agents.arena.cli import main

if __name__ == "__main__":  # worker processes started by spawn import this module too
    raise SystemExit(main())
