"""`python -m engine`: the engine's command line (see engine.cli)."""

import sys

from engine.cli import main

sys.exit(main())
