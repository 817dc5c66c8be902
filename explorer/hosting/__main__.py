"""``python -m explorer.hosting NOTEBOOK [voila options]``: see :mod:`explorer.hosting.server.server`."""

from explorer.hosting.upstream_names import require

require()  # before the server's modules replace anything of Voila's: a missing upstream name, one line, exit 3

from explorer.hosting.server.server import main  # noqa: E402 - after the check

main()
