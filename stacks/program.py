"""The Pulumi program: load config, build the graph, export outputs.

`__main__.py` calls `main()` under the Pulumi CLI; the offline plan calls it under mocks.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import config as runtime_config
from pydantic import ValidationError

from core.errors import GpuCiError
from stacks.compose import build_graph
from stacks.config import ConfigError, RawConfig, load_config, raw_from_flat
from stacks.config.param_keys import unprepared_problems
from stacks.config.recipe import PROJECT_ROOT
from stacks.context import StackContext


def main() -> None:
    """Validate the whole config first; a bad key stops the run before anything registers.

    A config with no gpu-ci layer (a lost one: no gpu-ci key at all) is refused as well,
    never planned as "nothing", which `pulumi up` would apply by deleting every resource.
    `build_graph` resolves the recipe and builds every parameter model before the first
    resource (`prepare`), all problems in one message; a refusal that still comes later is
    reported the same way, at its config key, never as a traceback.
    """
    root = pulumi.get_root_directory()  # Pulumi.yaml's folder; None under bare mocks
    ctx = StackContext(
        project=pulumi.get_project(),
        stack=pulumi.get_stack(),
        root=Path(root) if root else PROJECT_ROOT,
    )
    secret_keys: frozenset[str] = frozenset()
    try:
        raw = runtime_raw_config()
        secret_keys = raw.secret_keys
        cfg = load_config(raw, ctx.stack, ctx.root)
        outputs = build_graph(cfg, ctx, secret_keys=secret_keys)  # checks all, then registers
    except GpuCiError as err:
        raise pulumi.RunError(str(err)) from None
    except ValidationError as err:  # a model `prepare` does not build: same one message
        late = ConfigError(ctx.stack, unprepared_problems(err, secret_keys), late=True)
        raise pulumi.RunError(str(late)) from None
    outputs.export()


def runtime_raw_config() -> RawConfig:
    """The namespace as the running Pulumi program sees it (CLI or mocks)."""
    flat: dict[str, Any] = dict(runtime_config.get_config_env())
    flat.update(runtime_config.CONFIG.get())
    secret = set(runtime_config.get_config_secret_keys_env()) | runtime_config._SECRET_KEYS.get()
    return raw_from_flat(flat, secret)
