"""``python -m agents.web``: see :mod:`agents.web.cli`."""

from agents.web.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
