"""What runs in the server process: the hardened Voila (``ExplorerVoila``), its handlers, the guarded kernel
websocket, seats and the warden, the demand pool and the memory cap, the static answers, and the kernel
provisioner (``ForkProvisioner``, which asks the kernel template for forks). :mod:`.upstream_server` is the one
module here that reaches upstream names Voila, jupyter_server, jupyter_client, nbconvert, tornado and pyzmq do
not document (docs/architecture.md, "Processes").

Nothing here imports :mod:`explorer.hosting.kernel`, except the one channel the provisioner shares with the
kernels: the name of the environment variable that holds widget messages (``held_widgets.ENV``).
"""
