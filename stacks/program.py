"""The Pulumi program: load config, build the graph, export outputs.

`__main__.py` calls `main()` under the Pulumi CLI; the offline plan calls it under mocks.
"""

from __future__ import annotations

import pulumi

from stacks.config import load_config, runtime_raw_config
from stacks.errors import GpuCiError
from stacks.graph import StackContext, build_graph


def main() -> None:
    """Validate the whole config first; a bad key stops the run before anything registers."""
    ctx = StackContext(project=pulumi.get_project(), stack=pulumi.get_stack())
    try:
        cfg = load_config(runtime_raw_config(), ctx.stack)
        outputs = build_graph(cfg, ctx)  # resolves recipes first: input errors stop here too
    except GpuCiError as err:
        raise pulumi.RunError(str(err)) from None
    outputs.export()
