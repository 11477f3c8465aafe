"""The host steps by name and the typed parameters each takes (bootstrap, cluster, runner),
with the checks they share (SSH public keys, runner names), and which model each step takes.

The lowest floor of `components/host`: it may import `components.pins` and `core`, never
`components.host.config` or the host modules above it.
"""
