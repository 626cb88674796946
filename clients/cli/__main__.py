"""`python -m clients.cli`: the `photofinish` command (the tests start servers this way)."""

import sys

from . import main

sys.exit(main())
