"""The kernel side of mechnb (DESIGN §2a): what runs inside the IPython kernel.

``magics`` (the ``%mech`` line magic and its subcommands), ``insertion`` (cells inserted below
the running cell through the frontend, or shown as output where no extension answers),
``bridge`` (the comm to the JupyterLab / Notebook 7 extension) and ``context`` (what the kernel
knows of its notebook: the running cell's id, the notebook's path after renames, its language).
Nothing here is imported by ``mechnb check`` or ``mechnb export``; ``%load_ext mechnb`` imports
only ``magics`` (under 50 ms, ``benchmarks/bench_load_ext.py``).
"""
