"""The stack's host keys: `gpu-ci:host` (where the steps run), `gpu-ci:host.versions` (what
they install), `gpu-ci:runner` (the GitHub runner), and the toolkit x nvkind x CDI
compatibility rules the versions are checked against.

Above `components.host.params` (whose runner checks it reuses); besides, it imports only
`components`' shared config modules (`config_base`, `pins`) and `core`, never the host
modules above it.
"""
