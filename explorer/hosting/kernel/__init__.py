"""What runs in the kernel template and in each kernel forked from it: the template script
(:mod:`.kernel_template`, run as a file, not with ``-m``), the held widget messages, the processes' names, and
:mod:`.upstream_kernel`, the one module of this side that reaches names ipykernel, comm, ipywidgets and ipympl
do not document (docs/architecture.md, "Processes").

Nothing here imports :mod:`explorer.hosting.server`.
"""
