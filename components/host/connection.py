"""The SSH connection pulumi-command uses to reach a host, built from typed config.

Private keys become Pulumi secrets here and nowhere else; without one, the deployer's
ssh-agent is used (SSH_AUTH_SOCK). A pinned host key is verified on every connection.
Dialing retries for a bounded time, so a VM that is still booting is waited for.
"""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi_command as command
from pydantic import SecretStr

DIAL_ATTEMPTS = 60
"""With PER_DIAL_SECONDS, about ten minutes for a new VM's sshd to come up."""
PER_DIAL_SECONDS = 10


def _secret(key: SecretStr | None) -> Any:
    return None if key is None else pulumi.Output.secret(key.get_secret_value())


def _endpoint(
    address: pulumi.Input[str],
    user: str,
    port: int,
    private_key: SecretStr | None,
    host_key: str | None,
) -> dict[str, Any]:
    """What a connection and its proxy share: where, who, which keys, how long to dial."""
    return {
        "host": address,
        "port": port,
        "user": user,
        "private_key": _secret(private_key),
        "host_key": host_key,
        "dial_error_limit": DIAL_ATTEMPTS,
        "per_dial_timeout": PER_DIAL_SECONDS,
    }


def ssh_connection(
    *,
    address: pulumi.Input[str],
    user: str,
    port: int = 22,
    private_key: SecretStr | None = None,
    host_key: str | None = None,
    proxy: command.remote.ProxyConnectionArgs | None = None,
) -> command.remote.ConnectionArgs:
    return command.remote.ConnectionArgs(
        **_endpoint(address, user, port, private_key, host_key), proxy=proxy
    )


def ssh_proxy(
    *,
    address: str,
    user: str,
    port: int = 22,
    private_key: SecretStr | None = None,
    host_key: str | None = None,
) -> command.remote.ProxyConnectionArgs:
    return command.remote.ProxyConnectionArgs(
        **_endpoint(address, user, port, private_key, host_key)
    )
