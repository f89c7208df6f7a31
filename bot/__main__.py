"""`python -m bot`: the same as the `sudija` command."""

import sys

from bot.cli import main

sys.exit(main())
