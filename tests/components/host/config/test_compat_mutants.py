"""The compatibility model's exact findings, pins and bounds (mutation-testing survivors)."""

from __future__ import annotations

import datetime as dt

import pytest

from components.host.config.compat import (
    KNOWN,
    Combination,
    Finding,
    NvkindCommit,
    Predicate,
    check,
    parse_version,
)
from components.pins import PINS

FIX_DATE = dt.date(2026, 4, 20)
NVKIND = NvkindCommit(sha="9a3061c", date=FIX_DATE)


def combo(**changes: object) -> Combination:
    base = {
        "driver_branch": "570-server",
        "toolkit_version": "1.19.1-1",
        "cdi_enabled": True,
        "nvkind": NVKIND,
        "gpu_operator_version": "v26.3.1",
    }
    return Combination.model_validate({**base, **changes})


def test_unknown_findings_say_exactly_what_is_unknown_and_how_to_fix_it() -> None:
    unknown = NvkindCommit(sha="abcdef1", date=dt.date(2026, 6, 1))
    report = check(
        combo(
            toolkit_version="1.21.0-1",
            driver_branch="590-server",
            gpu_operator_version="v27.1.0",
            nvkind=unknown,
        )
    )
    add = "test it on a GPU host, then add it to compat.py."
    assert report.warnings == (
        Finding(
            rule="unknown-toolkit-version",
            reason="toolkit 1.21.0 is not in the compatibility data.",
            fix="test it on a GPU host, then add it (and any breakage) to compat.py.",
        ),
        Finding(
            rule="unknown-driver-branch",
            reason="driver branch 590 is not in the compatibility data.",
            fix=add,
        ),
        Finding(
            rule="unknown-gpu-operator-version",
            reason="GPU operator v27.1.0 is not in the compatibility data.",
            fix=add,
        ),
        Finding(
            rule="unknown-nvkind-commit",
            reason=(
                "nvkind commit abcdef1 (2026-06-01) is not in the compatibility data; "
                "only date-based rules were applied."
            ),
            fix=add,
        ),
    )


def test_a_longer_sha_of_a_known_commit_is_known() -> None:
    full = NvkindCommit(sha=PINS.nvkind.commit + "0123456789", date=FIX_DATE)
    assert check(combo(nvkind=full)).warnings == ()


def test_a_short_sha_of_a_known_full_commit_is_known() -> None:
    full = "9a3061c0123456789abcdef0123456789abcdef0"
    known = KNOWN.model_copy(update={"nvkind_commits": frozenset({full})})
    assert check(combo(), known=known).warnings == ()
    other = NvkindCommit(sha="9a3061d", date=FIX_DATE)
    assert [w.rule for w in check(combo(nvkind=other), known=known).warnings] == [
        "unknown-nvkind-commit"
    ]


def test_parse_version_names_the_text_it_refuses() -> None:
    with pytest.raises(ValueError, match=r"^not a version: 'server-570'$"):
        parse_version("server-570")


def test_from_pins_defaults_to_no_cdi_and_no_operator() -> None:
    combination = Combination.from_pins()
    assert combination.cdi_enabled is False
    assert combination.gpu_operator_version is None
    assert combination.driver_branch == PINS.driver_branch
    assert combination.toolkit_version == PINS.toolkit_version
    assert combination.nvkind == NvkindCommit(sha=PINS.nvkind.commit, date=PINS.nvkind.commit_date)


def test_from_pins_keeps_the_recipe_operator_version() -> None:
    combination = Combination.from_pins(cdi_enabled=True, gpu_operator_version="v26.3.1")
    assert combination.cdi_enabled is True
    assert combination.gpu_operator_version == "v26.3.1"


def test_committed_on_or_after_includes_the_bound_day() -> None:
    since_fix = Predicate(nvkind_committed_on_or_after=FIX_DATE)
    assert since_fix.matches(combo())
    day_before = NvkindCommit(sha="9a3061c", date=FIX_DATE - dt.timedelta(days=1))
    assert not since_fix.matches(combo(nvkind=day_before))
