"""The plan snapshot's type: what every reader of a snapshot takes and `recorded` writes.

The format itself is described where it is made (`stacks.offline.snapshot.recorded`); the
type sits here, below both the maker and the graph readers the maker uses, so neither
imports the other for it.
"""

from __future__ import annotations

from typing import Any

Snapshot = dict[str, Any]
