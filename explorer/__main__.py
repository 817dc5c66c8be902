"""``python -m explorer``: see :mod:`explorer.cli`."""

import sys

from explorer.cli import main

sys.exit(main())
