"""Host bootstrap: the idempotent shell steps that turn a VM, an SSH host or the local
machine into a GPU container host (driver, Docker, NVIDIA container toolkit, kind/nvkind),
rendered (`render.py`), chained by digest (`chain.py`) and run as pulumi-command resources
(`gpu_host.py`, `github_runner.py`), with the drift job's probe comparison.

Three floors, each importing only those below it: `params/` (what each step takes),
`config/` (the stack's host, versions and runner keys, and the compatibility rules), then
the modules here, which may import both, `components`' shared modules and `core`.
"""
