"""``python -m agents.bench``: the command line (:mod:`agents.bench.cli`)."""

from agents.bench.cli import main

if __name__ == "__main__":  # worker processes started by spawn import this module too
    raise SystemExit(main())
