"""``python -m explorer.hosting NOTEBOOK [voila options]``: see :mod:`explorer.hosting.server`."""

from explorer.hosting.server import main

main()
