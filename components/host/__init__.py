"""Host bootstrap: the idempotent shell steps that turn a VM, an SSH host or the local
machine into a GPU container host (driver, Docker, NVIDIA container toolkit, kind/nvkind),
their typed parameters and renderer, the version pins, and the compatibility model."""
