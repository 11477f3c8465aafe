"""The plugin's provider: the SDK's component provider, with gpu-ci's input errors.

The SDK's `ComponentProvider` analyzes the components (their `args` and output
annotations) into the package schema, and `construct` maps the engine's inputs, keyed by
schema name, onto the component (pulumi/sdk/python/lib/pulumi/provider/experimental/
component.py @ v3.272.0). It reports any exception a constructor raises with its stack;
a component refusing its inputs is a message the user acts on, so it is reported as the
engine's invalid-inputs error instead: the one message, and each problem at its input.
"""

import asyncio
import json
from pathlib import Path
from typing import Any

import pulumi
from pulumi import Inputs
from pulumi.errors import InputPropertiesError, InputPropertyErrorDetails
from pulumi.output import Unknown, _OutputData
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.provider import ConstructResult
from pulumi.provider.server import ComponentInitError
from pulumi.runtime.sync_await import _sync_await

from core import read_json
from core.read_limits import MIB, Limits
from gpu_ci_package.arc import ArcRunnerScaleSets
from gpu_ci_package.build import InputsError, UnknownInputError
from gpu_ci_package.cluster import GpuCluster
from gpu_ci_package.host import GpuRunnerHost
from gpu_ci_package.platform import RecipePlatform

NAME = "gpu-ci"
"""The package's name: its resources are `gpu-ci:index:<Component>`."""
VERSION = "0.1.0"
"""The schema's version (SDK generation needs one; a release tag names the same)."""
COMPONENTS: list[type[pulumi.ComponentResource]] = [
    GpuRunnerHost,
    GpuCluster,
    RecipePlatform,
    ArcRunnerScaleSets,
]


class GpuCiProvider(ComponentProvider):
    """`ComponentProvider`, whose construct reports refused inputs as invalid inputs."""

    def __init__(self) -> None:
        super().__init__(COMPONENTS, NAME, None, VERSION)

    def construct(
        self,
        name: str,
        resource_type: str,
        inputs: Inputs,
        options: pulumi.ResourceOptions | None = None,
    ) -> ConstructResult:
        self.validate_resource_type(self._name, resource_type)
        component = resource_type.rsplit(":", maxsplit=1)[-1]
        try:
            plain, secret = _unwrapped(dict(inputs))
        except UnknownInputError as err:
            raise InputPropertiesError(str(err)) from None
        mapped = dict(self.map_inputs(plain, self._component_defs[component]))
        for key, value in mapped.items():  # the schema name and the Python name are one
            if key in secret:
                mapped[key] = _resolved(value, secret=True)
        try:
            # `ComponentResource` is what the SDK holds; each of ours takes (name, args, opts)
            instance = self._components[component](name, mapped, options)  # type: ignore[arg-type]
        except InputsError as err:
            errors = [
                InputPropertyErrorDetails(property_path=key, reason=reason)
                for key, reason in err.problems
            ]
            raise InputPropertiesError(str(err), errors) from None
        except UnknownInputError as err:
            raise InputPropertiesError(str(err)) from None
        except Exception as err:  # as the SDK's construct: a fault, with its stack
            raise ComponentInitError(err) from err
        state = self.get_state(instance, self._component_defs[component])
        return ConstructResult(instance.urn, state)


def _unwrapped(inputs: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """Each input as its value, and the keys that were secrets.

    The server wraps an input holding a secret anywhere in it as one secret Output
    (server.py `_select_value`), which `map_inputs` would read as an empty object
    (component.py `map_input_properties`: `input_val if isinstance(input_val, dict) else
    {}`): a secret GitHub App key would drop its whole `runner`. Mapped plain, each such
    input is a secret again after (`_resolved`). An input with a value not known at
    preview (another resource's output) is wrapped so too; read as an empty object it
    would be refused as missing its required keys, so it is refused as not known."""
    plain: dict[str, Any] = {}
    secret: set[str] = set()
    for key, value in inputs.items():
        if isinstance(value, Unknown):
            raise UnknownInputError(key)
        if not isinstance(value, pulumi.Output):
            plain[key] = value
            continue
        data = _sync_await(value._data)
        if not data.is_known:
            raise UnknownInputError(key)
        plain[key] = data.value
        if data.is_secret:
            secret.add(key)
    return plain, secret


def _resolved(value: Any, *, secret: bool) -> pulumi.Output[Any]:
    """`value` as an Output already resolved, as the server makes of an input."""
    data: asyncio.Future[_OutputData[Any]] = asyncio.Future()
    data.set_result(_OutputData(set(), value, is_known=True, is_secret=secret))
    return pulumi.Output._from_data(data)


SCHEMA_LIMITS = Limits(
    kind="package schema",
    max_bytes=4 * MIB,
    max_depth=32,
    max_values=0,
    reason="the package schema is a few hundred kilobytes",
)
SCHEMA_FILE = Path(__file__).with_name("schema.json")
"""The golden schema, checked in; `python -m gpu_ci_package.provider` rewrites it."""


def schema() -> dict[str, Any]:
    """The package schema, as the SDK's analyzer infers it from the components."""
    text = GpuCiProvider().schema or "{}"
    return dict(read_json.parse(text, name="the analyzer's schema", limits=SCHEMA_LIMITS))


def schema_text() -> str:
    """The schema as schema.json holds it."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    SCHEMA_FILE.write_text(schema_text(), encoding="utf-8")
