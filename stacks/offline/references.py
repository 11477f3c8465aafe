"""A planned stack's exports as another stack's StackReference reads them.

`plan` answers a stack's StackReference with the exports of the stack it names, planned
first. What those exports hold is the fake cloud's answer (`StackExports`), made here from
the referenced stack's run: a secret known only after deployment becomes a placeholder that
carries the generation of what it is built from (`stacks.offline.lifecycle.generations`), so
it sits above the engine, the snapshot and the lifecycle rules it reads.
"""

from __future__ import annotations

from stacks.offline.engine.fakes import StackExports
from stacks.offline.engine.records import ProgramRun
from stacks.offline.engine.values import has_secret, has_unknown, reveal
from stacks.offline.lifecycle.generations import export_identities
from stacks.offline.snapshot.recorded import snapshot_of


def reference_exports(stack: str, run: ProgramRun) -> StackExports:
    """A planned stack's exports as a StackReference to it reads them.

    An export with a secret anywhere inside is a secret output (the engine lists it in
    `secretOutputNames`, so the reading stack gets it as a secret).

    The SDK makes a StackReference's whole `outputs` unknown if any value in it is, which
    would hide every export behind one VM's IP. So a secret only known after deployment (a
    kubeconfig) reads as a placeholder that carries its identity in this plan of the
    referenced stack (`export_identities`: it changes exactly when what the export is built
    from would be made anew, as a new cluster's kubeconfig does), so the reading stack's
    diff shows its provider replaced when the referenced stack's cluster is. Other exports
    with unknown parts are left out: exports the plan knows stay readable.
    """
    identities = export_identities(snapshot_of(run), run.export_sources)
    outputs = {}
    for name, value in run.exports.items():
        plain = reveal(value)
        if not has_unknown(plain):
            outputs[name] = plain
        elif has_secret(value):
            # Unknown only as a resource's output: it has sources, so an identity.
            outputs[name] = f"offline-placeholder:{stack}.{name}:{identities[name]}"
    return StackExports(
        outputs=outputs,
        secret_names=frozenset(k for k, v in run.exports.items() if has_secret(v)),
    )
