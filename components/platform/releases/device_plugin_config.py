"""A device plugin config read as NVIDIA's k8s-device-plugin v0.20.0 reads it.

v0.20.0 is the plugin gpu-operator v26.7.0 deploys (its values.yaml `devicePlugin.version`).
The plugin decodes its config with sigs.k8s.io/yaml (`api/config/v1/config.go`
`parseConfigFrom`): YAML becomes JSON, a map's keys sorted (`json.Marshal`), then
`encoding/json` fills the struct, which matches a field's name case-insensitively, a later
key overwriting an earlier one. So `Sharing:` and `TIMESLICING:` share GPUs as `sharing:`
and `timeSlicing:` do. Inside a sharing strategy the plugin reads a map by exact key
(`replicas.go`, `ReplicatedResources.UnmarshalJSON` and `ReplicatedResource.UnmarshalJSON`):
`resources`, `name` and `replicas` must be spelt so, `replicas` must be a whole number of at
least 2, and a `name` without the `nvidia.com/` prefix gets it (`resources.go`
`NewResourceName`). A config the plugin would refuse shares nothing: the plugin fails to
start with it, which the health checks show.
"""

from __future__ import annotations

from typing import Any

PREFIX = "nvidia.com/"
STRATEGIES = ("timeSlicing", "mps")
"""The fields of the plugin's `Sharing` struct (`api/config/v1/sharing.go`), by JSON name."""


def field(node: Any, name: str) -> Any:
    """A struct field as encoding/json fills it from `node`: every key equal to `name` under
    Go's case folding, the last in sorted order winning; None if there is none."""
    if not isinstance(node, dict):
        return None
    wanted = name.casefold()  # Go's EqualFold, for these ASCII names (K and long s included)
    keys = sorted(k for k in node if isinstance(k, str) and k.casefold() == wanted)
    return node[keys[-1]] if keys else None


def shared_replicas(config: Any, resource: str) -> dict[str, int]:
    """{strategy: replicas} for each strategy of `config` that shares `resource`."""
    found: dict[str, int] = {}
    sharing = field(config, "sharing")
    for strategy in STRATEGIES:
        part = field(sharing, strategy)
        resources = part.get("resources") if isinstance(part, dict) else None
        for entry in resources if isinstance(resources, list) else []:
            replicas = entry.get("replicas") if isinstance(entry, dict) else None
            name = entry.get("name") if isinstance(entry, dict) else None
            if not isinstance(name, str) or type(replicas) is not int or replicas < 2:
                continue
            if (name if name.startswith(PREFIX) else PREFIX + name) == resource:
                found[strategy] = max(found.get(strategy, 0), replicas)
    return found
