#!/usr/bin/env python
"""Django's command-line utility for Ludus."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from tournaments.commandline import execute

    execute(sys.argv)


if __name__ == "__main__":
    main()
