"""``python -m ppdp.report``: the report's command line (:func:`ppdp.report.cli.main`)."""

from ppdp.report.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
