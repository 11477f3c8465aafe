"""The compatibility model: known breakages as data, unknowns as warnings."""

from __future__ import annotations

import datetime as dt

from components.host.config.compat import (
    KNOWN,
    RULES,
    Combination,
    NvkindCommit,
    Predicate,
    Rule,
    VersionRange,
    check,
    parse_version,
)

OLD_NVKIND = NvkindCommit(sha="9a3061c", date=dt.date(2026, 4, 19))  # day before the fix
RECENT_NVKIND = NvkindCommit(sha="9a3061c", date=dt.date(2026, 4, 20))


def combo(**changes: object) -> Combination:
    base = {
        "driver_branch": "570-server",
        "toolkit_version": "1.19.1-1",
        "cdi_enabled": True,
        "nvkind": RECENT_NVKIND,
        "gpu_operator_version": "v26.3.1",
    }
    return Combination.model_validate({**base, **changes})


def test_toolkit_118_with_old_nvkind_is_an_error_with_reason_and_fix() -> None:
    report = check(combo(toolkit_version="1.18.1-1", nvkind=OLD_NVKIND))
    assert not report.ok
    by_rule = {f.rule: f for f in report.errors}
    umount = by_rule["nvkind-61-jit-cdi-umount"]
    assert "umount: /proc/driver/nvidia: not mounted" in umount.reason
    assert "9a3061c" in umount.fix
    assert "9a3061c" in str(umount) and "Fix:" in str(umount)


def test_toolkit_1191_recent_nvkind_cdi_is_clean() -> None:
    report = check(combo())
    assert report.ok
    assert report.errors == ()
    assert report.warnings == ()


def test_pinned_defaults_are_clean() -> None:
    assert check(Combination.from_pins()).errors == ()
    assert check(Combination.from_pins(cdi_enabled=True)).errors == ()


def test_toolkit_117_with_old_nvkind_is_fine() -> None:
    assert check(combo(toolkit_version="1.17.8-1", nvkind=OLD_NVKIND)).errors == ()


def test_toolkit_1180_containerd_dropin_path_until_119() -> None:
    for version in ("1.18.0-1", "1.18.1-1"):
        rules = {f.rule for f in check(combo(toolkit_version=version)).errors}
        assert rules == {"toolkit-1.18-containerd-dropin-path"}
    assert check(combo(toolkit_version="1.19.0-1")).errors == ()


def test_missing_volume_mounts_or_default_runtime_is_an_error() -> None:
    errors = check(combo(volume_mounts_accepted=False, nvidia_default_runtime=False)).errors
    assert {f.rule for f in errors} == {
        "nvkind-needs-volume-mounts",
        "nvkind-needs-nvidia-default-runtime",
    }


def test_device_plugin_alone_warns() -> None:
    report = check(combo(gpu_operator_version=None, device_plugin_only=True))
    assert report.ok
    assert [w.rule for w in report.warnings] == ["nvkind-20-device-plugin-alone"]


def test_host_without_any_gpu_operator_draws_no_operator_warning() -> None:
    report = check(combo(gpu_operator_version=None))
    assert report.ok
    assert report.warnings == ()


def test_unknown_versions_warn_not_fail() -> None:
    report = check(
        combo(
            toolkit_version="1.21.0-1",
            driver_branch="590-server",
            gpu_operator_version="v27.1.0",
            nvkind=NvkindCommit(sha="abcdef1", date=dt.date(2026, 6, 1)),
        )
    )
    assert report.ok
    assert {w.rule for w in report.warnings} == {
        "unknown-toolkit-version",
        "unknown-driver-branch",
        "unknown-gpu-operator-version",
        "unknown-nvkind-commit",
    }
    assert any("1.21.0" in w.reason for w in report.warnings)


def test_unknown_nvkind_commit_still_gets_date_rules() -> None:
    old = NvkindCommit(sha="0123abc", date=dt.date(2025, 6, 1))
    report = check(combo(toolkit_version="1.19.1-1", nvkind=old))
    assert [f.rule for f in report.errors] == ["nvkind-61-jit-cdi-umount"]
    assert [w.rule for w in report.warnings] == ["unknown-nvkind-commit"]


def test_a_new_rule_record_fires_without_code_changes() -> None:
    rule = Rule(
        id="operator-2510-needs-cdi",
        when=Predicate(gpu_operator=VersionRange(at_least="v25.10.0"), cdi_enabled=False),
        reason="operator >= 25.10 expects CDI.",
        fix="enable CDI.",
    )
    rules = (*RULES, rule)
    assert [f.rule for f in check(combo(cdi_enabled=False), rules=rules).errors] == [rule.id]
    assert check(combo(cdi_enabled=True), rules=rules).errors == ()
    assert check(combo(gpu_operator_version="v25.3.2", cdi_enabled=False), rules=rules).ok
    assert check(combo(cdi_enabled=False)).ok  # the shipped rules are unchanged


def test_warning_severity_rule_does_not_fail() -> None:
    rule = Rule(
        id="soft",
        severity="warning",
        when=Predicate(driver_branch=VersionRange(below="575")),
        reason="r",
        fix="f",
    )
    report = check(combo(), rules=(rule,))
    assert report.ok
    assert [w.rule for w in report.warnings] == ["soft"]


def test_version_parsing_and_ranges() -> None:
    assert parse_version("1.18.1-1") == (1, 18, 1)
    assert parse_version("v25.3.2") == (25, 3, 2)
    assert parse_version("570-server") == (570,)
    r = VersionRange(at_least="1.18.0", below="1.19.0")
    assert r.contains("1.18.0") and r.contains("1.18.9-1")
    assert not r.contains("1.17.8-1") and not r.contains("1.19.0")
    assert "1.19.1" in KNOWN.toolkit_versions
