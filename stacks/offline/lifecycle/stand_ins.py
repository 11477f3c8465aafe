"""The values an offline plan makes up for what only the cloud could answer.

A lookup (`oci.core.get_subnet`, the image filter, the availability domains) is answered
by `stacks.offline.engine.fakes.FakeCloud` with a stand-in derived from its arguments: an OCID
`ocid1.<kind>.oc1.<region>.<20 hex digits>` or an availability domain `Fake:<REGION>-AD-<n>`.
Two plans that differ in such a value differ in what the fake derived, not necessarily in
what the cloud would answer (a subnet moved inside one VCN has the same `vcnId`), so a
replacement the diff reads from it is a guess (`may-replace`). A change of region is
certain to change them all (real OCIDs are regional), and so is another AD stand-in: the
fake names the region's ADs by their index, as the cloud lists them.

Real OCIDs end in a base32 string of about 60 characters, never in 20 hex digits, and real
AD names carry a tenancy prefix (`Uocm:`), never `Fake:`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from stacks.offline.snapshot.paths import flatten

STAND_IN_OCID = r"ocid1\.([a-z0-9]+)\.oc1\.([a-z0-9-]*)\.[0-9a-f]{20}"
"""An OCID `FakeCloud` makes up: kind, region (empty for an AD's), 20 hex digits."""
STAND_IN_AD = r"Fake:([A-Z0-9]+)-AD-([0-9]+)"
"""An availability domain `FakeCloud.ad_names` makes up: region key and index."""
_OCID = re.compile(STAND_IN_OCID)
_AD = re.compile(STAND_IN_AD)
AD = "availability-domain"
LOOKUPS = {
    "vcn": "the VCN `getSubnet` finds for the subnet",
    "image": "the image the filter finds",
}
"""What each stand-in OCID kind answers, in a few words."""


@dataclass(frozen=True)
class StandIn:
    kind: str
    """`vcn`, `image`, ... or `availability-domain`."""
    region: str
    """The region key (`ASHBURN` of `us-ashburn-1`, as the fake AD names spell it)."""
    full_region: str = ""
    """The region as config spells it, where the value holds it (OCIDs)."""


def region_key(region: str) -> str:
    """`us-ashburn-1` -> `ASHBURN`, as `FakeCloud.ad_names` keys it."""
    return region.split("-")[1].upper() if "-" in region else region.upper()


def stand_in(value: Any) -> StandIn | None:
    """The stand-in `value` is, or None for a value the plan did not make up."""
    if not isinstance(value, str):
        return None
    if m := _OCID.fullmatch(value):
        return StandIn(m.group(1), region_key(m.group(2)), m.group(2))
    if m := _AD.fullmatch(value):
        return StandIn(AD, m.group(1))
    return None


def guessed_change(old: Any, new: Any) -> str:
    """Why a change from `old` to `new` is a guess, or "" when it is not: one side is a
    stand-in and the region stays (a moved region changes every regional value)."""
    a, b = stand_in(old), stand_in(new)
    found = a or b
    if found is None or found.kind == AD:
        return ""  # AD names are the region's, by index: another one is another AD
    if a is not None and b is not None and a.region != b.region:
        return ""
    what = LOOKUPS.get(found.kind, f"a {found.kind} a lookup finds")
    return (
        f"the offline plan makes up {what} (stacks/offline/engine/fakes.py); "
        "the cloud may answer the same as before"
    )


def regions(snapshot: Mapping[str, Any]) -> dict[str, str]:
    """The regions a plan's stand-ins name: region key -> its config spelling ("" when only
    an AD name shows it)."""
    found: dict[str, str] = {}
    for r in snapshot.get("resources") or []:
        for value in _values(r.get("inputs") or {}):
            if (s := stand_in(value)) is not None:
                found[s.region] = found.get(s.region) or s.full_region
    return found


def _values(inputs: Mapping[str, Any]) -> Iterable[Any]:
    return flatten(dict(inputs)).values()
