"""What the offline plan stands in for: values only a cloud account could answer.

The offline plan answers lookups and outputs with deterministic fakes
(`stacks.offline.engine.fakes`): a VM's addresses from TEST-NET-3, OCIDs whose unique part is 20 hex
digits, availability domains named `Fake:...`, a StackReference's secret as
`offline-placeholder:...`. A `pulumi preview` of a deployed stack reads the real ones from the state
instead. So where a plan's input holds a stand-in and the state's value is the same text with real
values in the stand-ins' places, the input is not a change: the diff against the state says it was
not compared (the plan cannot know the real value), never that it changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from stacks.offline.engine.fakes import INSTANCE, vm_addresses
from stacks.offline.lifecycle.stand_ins import STAND_IN_AD, STAND_IN_OCID

STANDIN = "the offline plan stands in for it (a cloud lookup or another resource's output)"

_PATTERNS = (
    STAND_IN_OCID + r"(?![0-9a-z])",  # FakeCloud.resource_id/_ads/_images/_subnet
    STAND_IN_AD,  # FakeCloud.ad_names
    r"offline-placeholder:[^\s\"']*",  # references.reference_exports
)
_REAL = r"[^\s\"'`;,]+?"
"""What a real value in a stand-in's place may be: one token, as short as can match."""


class StandIns:
    """The stand-ins a plan's inputs may hold: the patterns above, and the addresses of
    the plan's own VMs (`vm_addresses`, derived from each Instance's name)."""

    def __init__(self, instance_names: Iterable[str]) -> None:
        literal: list[str] = []
        for name in sorted(set(instance_names)):
            literal += vm_addresses(name).values()
        # An address ends in a digit: followed by another digit, it is another address.
        exact = [re.escape(s) + r"(?![0-9])" for s in literal]
        self._any = re.compile("|".join([*_PATTERNS, *exact]))

    @classmethod
    def of(cls, resources: Iterable[dict[str, object]]) -> StandIns:
        return cls(str(r["name"]) for r in resources if r.get("type") == INSTANCE)

    def held_in(self, text: str) -> bool:
        return self._any.search(text) is not None

    def same_but_standins(self, plan: str, state: str) -> bool:
        """Whether `state` is `plan` with a real value in each stand-in's place (and `plan`
        holds at least one)."""
        parts: list[str] = []
        pos = 0
        for match in self._any.finditer(plan):
            parts += [re.escape(plan[pos : match.start()]), f"({_REAL})"]
            pos = match.end()
        if not parts:
            return False
        parts.append(re.escape(plan[pos:]))
        return re.fullmatch("".join(parts), state) is not None
