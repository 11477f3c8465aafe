"""How clients reach the cluster's API server, whose address is known only at deploy time.

The API server listens on `apiServerAddress` (0.0.0.0 by default; the network layer opens
`apiPort` only to `apiSourceCidrs`), on `apiServerPort`, and a kubeadm
`ClusterConfiguration` patch adds the host's address to the serving certificate's SANs.
That address is a VM's public IP, so the rendered kind config carries
`API_SERVER_ADDRESS_PLACEHOLDER`, which the `nvkind-cluster` host step replaces with
`$API_SERVER_ADDRESS`.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Final

from components.cluster.errors import ClusterSpecError

API_SERVER_ADDRESS_PLACEHOLDER: Final = "__GPU_CI_API_SERVER_ADDRESS__"
"""Replaced at deploy time by the host's address (see the module docstring)."""
LOCAL_SANS: Final = ("localhost", "127.0.0.1")
"""Always in the API server certificate: kind's own SANs are replaced by the patch, and
the kubeconfig kept on the host talks to 127.0.0.1."""
DEFAULT_API_SERVER_PORT: Final = 6443

_HOSTNAME = re.compile(
    r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)


def is_address(value: str) -> bool:
    """An IP address, or a DNS name (digits and dots alone must be a valid IPv4)."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        if re.fullmatch(r"[0-9.]+", value):
            return False
        return len(value) <= 253 and _HOSTNAME.fullmatch(value) is not None
    return True


def check_api_address(address: str) -> None:
    """Refuse an address a client elsewhere cannot connect to."""
    if address in ("0.0.0.0", "") or not is_address(address) or ":" in address:
        raise ClusterSpecError(
            f"API server address {address!r} is not an IPv4 address or DNS name clients can "
            "reach (the host's public IP, or 127.0.0.1 on the local machine)"
        )


def kubeconfig_server(address: str, port: int) -> str:
    """The API server URL a kubeconfig for a client elsewhere uses."""
    check_api_address(address)
    return f"https://{address}:{port}"
