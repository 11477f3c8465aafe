"""No config value becomes code in the OKE GPU nodes' boot script, which runs as root.

Two guards, each tested on its own:
- the config refuses every taint key, value and effect (and node label) that Kubernetes
  would refuse, naming the key, before anything registers;
- the rendered user data keeps any value data even where validation is bypassed: the
  script of the planned node pool is decoded and run for real with bash in a scratch
  directory, against a stub `curl` that serves a stand-in for OKE's init script which
  records the argv it is given. A canary runs the old rendering in the same harness, to
  prove the harness would see an injection.
"""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pulumi
import pytest

from components.arc import pod_config
from components.arc.oke import taint_user_data
from components.arc.oke_config import OkeGpuPool
from components.arc.pod_config import Taint
from core.errors import GpuCiError
from stacks.config import ConfigError, load_config, raw_from_flat
from stacks.config.problems import given_text
from stacks.offline.engine.mocks import run_program
from stacks.offline.engine.records import Registration
from stacks.program import main
from tests.components.arc.arc_helpers import NODE_POOL, arc_stack, gpu_pod, oke, run_arc
from tests.stacks.stack_helpers import flat

SECRET = {"gpu-ci:arc"}
POOL = "gpu-ci:arc.cluster.oke.gpuPool"
INIT_SCRIPT = "/var/run/oke-init.sh"
INIT_URL = "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script"

# Every way out of a double-quoted, a single-quoted or an unquoted word, each of which
# would create PWNED in the working directory if the shell ran it.
PAYLOAD = (
    "present$(touch PWNED)`touch PWNED`\"; touch PWNED; echo \"'$(touch PWNED)'\ntouch PWNED\n"
)
KEY_PAYLOAD = 'nvidia.com/gpu$(touch PWNED)"; touch PWNED; echo "'


def gpu_pool_stack(**gpu_pool: Any) -> dict[str, Any]:
    return arc_stack(gpu_pod(), cluster=oke(gpuPool={"size": 1, **gpu_pool}))


# -- the config refuses what Kubernetes refuses --------------------------------------------

KEY_RULE = (
    "is not a Kubernetes taint key: an optional DNS-subdomain prefix and '/' (like "
    "nvidia.com/), then a name of 1-63 letters, digits, '-', '_' or '.' that starts and ends "
    "with a letter or digit"
)
VALUE_RULE = (
    "is not a Kubernetes taint value: empty, or 1-63 letters, digits, '-', '_' or '.' that "
    "start and end with a letter or digit"
)
EFFECT_RULE = (
    "must be one of 'NoSchedule', 'PreferNoSchedule', 'NoExecute' (did you mean 'NoSchedule'?)"
)

BAD_TAINTS: list[tuple[str, dict[str, str], str]] = [
    ("key-newline", {"key": "nvidia.com/gpu\n"}, f"key: 'nvidia.com/gpu\\n' {KEY_RULE}"),
    ("key-subst", {"key": "gpu$(touch PWNED)"}, f"key: 'gpu$(touch PWNED)' {KEY_RULE}"),
    ("key-quote", {"key": 'gpu"x'}, f"key: 'gpu\"x' {KEY_RULE}"),
    ("key-space", {"key": "nvidia.com/a gpu"}, f"key: 'nvidia.com/a gpu' {KEY_RULE}"),
    ("key-empty", {"key": ""}, f"key: '' {KEY_RULE}"),
    ("key-two-slashes", {"key": "a/b/c"}, f"key: 'a/b/c' {KEY_RULE}"),
    ("key-empty-prefix", {"key": "/gpu"}, f"key: '/gpu' {KEY_RULE}"),
    ("key-empty-name", {"key": "nvidia.com/"}, f"key: 'nvidia.com/' {KEY_RULE}"),
    ("key-upper-prefix", {"key": "NVIDIA.com/gpu"}, f"key: 'NVIDIA.com/gpu' {KEY_RULE}"),
    ("key-empty-label", {"key": "nvidia..com/gpu"}, f"key: 'nvidia..com/gpu' {KEY_RULE}"),
    ("key-dash-start", {"key": "-gpu"}, f"key: '-gpu' {KEY_RULE}"),
    ("key-dot-end", {"key": "gpu."}, f"key: 'gpu.' {KEY_RULE}"),
    ("key-name-64", {"key": "g" * 64}, f"key: '{'g' * 64}' {KEY_RULE}"),
    (
        "key-prefix-254",
        {"key": "a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 62 + "/gpu"},
        f"key: '{'a' * 63}.{'b' * 63}.{'c' * 63}.{'d' * 62}/gpu' {KEY_RULE}",
    ),
    (
        "value-newline",
        {"key": "nvidia.com/gpu", "value": "present\n"},
        f"value: 'present\\n' {VALUE_RULE}",
    ),
    (
        "value-subst",
        {"key": "nvidia.com/gpu", "value": "present$(touch PWNED)"},
        f"value: 'present$(touch PWNED)' {VALUE_RULE}",
    ),
    (
        "value-quote",
        {"key": "nvidia.com/gpu", "value": 'present" --node-ip="1'},
        f"value: 'present\" --node-ip=\"1' {VALUE_RULE}",
    ),
    (
        "value-comma",
        {"key": "nvidia.com/gpu", "value": "a,b=c:NoExecute"},
        f"value: 'a,b=c:NoExecute' {VALUE_RULE}",
    ),
    ("value-slash", {"key": "nvidia.com/gpu", "value": "a/b"}, f"value: 'a/b' {VALUE_RULE}"),
    (
        "value-dash",
        {"key": "nvidia.com/gpu", "value": "present-"},
        f"value: 'present-' {VALUE_RULE}",
    ),
    (
        "value-64",
        {"key": "nvidia.com/gpu", "value": "v" * 64},
        f"value: '{'v' * 64}' {VALUE_RULE}",
    ),
    (
        "effect-newline",
        {"key": "nvidia.com/gpu", "effect": "NoSchedule\n"},
        f"effect: {EFFECT_RULE}",
    ),
    ("effect-case", {"key": "nvidia.com/gpu", "effect": "noschedule"}, f"effect: {EFFECT_RULE}"),
    (
        "effect-empty",
        {"key": "nvidia.com/gpu", "effect": ""},
        "effect: must be one of 'NoSchedule', 'PreferNoSchedule', 'NoExecute'",
    ),
]


def problems(values: dict[str, Any]) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_config(raw_from_flat(flat(values), SECRET), "test")
    return [str(p) for p in caught.value.problems]


def refused_before_anything_registers(values: dict[str, Any]) -> str:
    """Run the real program; it must fail before its first registration."""
    registered: list[Registration] = []
    with pytest.raises((GpuCiError, pulumi.RunError)) as failure:
        run_program(
            main,
            project="gpu-ci",
            stack="test",
            config=flat(values),
            secret_keys=SECRET,
            registrations=registered,
        )
    assert registered == [], [r.urn for r in registered]
    return str(failure.value)


@pytest.mark.parametrize(
    ("taint", "problem"), [c[1:] for c in BAD_TAINTS], ids=[c[0] for c in BAD_TAINTS]
)
def test_a_bad_taint_is_one_problem_naming_its_key(taint: dict[str, str], problem: str) -> None:
    values = gpu_pool_stack(taints=[{"key": "ci/a10"}, taint])
    # gpu-ci:arc is a secret key (for its credentials); a taint is no credential: shown.
    given = given_text(taint[problem.split(":", maxsplit=1)[0]])
    expected = f"{POOL}.taints[1].{problem} [given: {given}]"
    assert problems(values) == [expected]
    assert expected in refused_before_anything_registers(values)


@pytest.mark.parametrize(
    ("labels", "problem"),
    [
        (
            {"gpu-ci/pool\n": "gpu"},
            "'gpu-ci/pool\\n' is not a Kubernetes label key ([prefix/]name)",
        ),
        ({"gpu-ci/pool": "gpu\n"}, "'gpu\\n' (for gpu-ci/pool) is not a Kubernetes label value"),
        (
            {"gpu-ci/pool": "$(reboot)"},
            "'$(reboot)' (for gpu-ci/pool) is not a Kubernetes label value",
        ),
        ({"a..b/pool": "gpu"}, "'a..b/pool' is not a Kubernetes label key ([prefix/]name)"),
    ],
)
def test_a_bad_node_label_is_one_problem_naming_its_key(
    labels: dict[str, str], problem: str
) -> None:
    values = gpu_pool_stack(labels=labels)
    assert problems(values) == [f"{POOL}.labels: {problem} [given: {given_text(labels)}]"]
    refused_before_anything_registers(values)


@pytest.mark.parametrize(
    "taint",
    [
        {"key": "nvidia.com/gpu", "value": "present"},
        {"key": "g"},
        {"key": "g" * 63, "value": "v" * 63, "effect": "NoExecute"},
        {"key": "k8s.io/a_b.c-D9", "value": "A_b.c-9", "effect": "PreferNoSchedule"},
        {"key": "a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 61 + "/gpu"},
        {"key": "x-1.example.org/gpu", "value": ""},
    ],
)
def test_what_kubernetes_accepts_loads(taint: dict[str, str]) -> None:
    cfg = load_config(raw_from_flat(flat(gpu_pool_stack(taints=[taint])), SECRET), "test")
    assert cfg.arc is not None and cfg.arc.cluster.oke is not None
    gpu = cfg.arc.cluster.oke.gpuPool
    assert gpu is not None and [t.model_dump() for t in gpu.taints] == [
        {"value": "", "effect": "NoSchedule", **taint}
    ]


# -- the boot script keeps values data, run for real ---------------------------------------

RECORDER = '#!/bin/bash\nprintf "%s\\0" "$@" >"$SANDBOX/init.argv"\n'
"""The stand-in for OKE's init script: records its argv, NUL-separated."""

CURL = """#!/bin/bash
printf '%s\\0' "$@" >"$SANDBOX/curl.argv"
cat "$SANDBOX/served"
"""


def run_boot_script(script: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Run the user data with bash as cloud-init would, in a scratch directory.

    PATH holds a stub `curl` (it serves RECORDER, base64-encoded, as the metadata service
    serves OKE's script) and the real bash, base64 and touch, so an injected
    `touch PWNED` would work. The one change to the script: its scratch file
    /var/run/oke-init.sh is moved into the sandbox (this machine's /var/run stays as is).
    """
    sandbox = tmp_path / "sandbox"
    work, bin_ = sandbox / "work", sandbox / "bin"
    for path in (work, bin_, sandbox / "var-run"):
        path.mkdir(parents=True)
    (sandbox / "served").write_text(base64.b64encode(RECORDER.encode()).decode())
    (bin_ / "curl").write_text(CURL)
    (bin_ / "curl").chmod(0o755)
    for tool in ("bash", "base64", "touch", "cat"):
        real = shutil.which(tool)
        assert real is not None, f"{tool} is needed"
        (bin_ / tool).symlink_to(real)
    assert script.count(INIT_SCRIPT) == 2, script
    moved = script.replace(INIT_SCRIPT, str(sandbox / "var-run" / "oke-init.sh"))
    (sandbox / "user-data").write_text(moved)
    env = {"PATH": str(bin_), "SANDBOX": str(sandbox), "HOME": str(sandbox), "LC_ALL": "C"}
    done = subprocess.run(
        [str(bin_ / "bash"), str(sandbox / "user-data")],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done, sandbox


def argv(path: Path) -> list[str]:
    return path.read_text().split("\0")[:-1]


def pwned(sandbox: Path) -> list[str]:
    return sorted(str(p.relative_to(sandbox)) for p in sandbox.rglob("PWNED*"))


def planned_user_data(monkeypatch: pytest.MonkeyPatch, key: str, value: str) -> str:
    """The GPU pool's user data of a planned stack whose taint got past validation."""
    monkeypatch.setattr(pod_config, "_taint_key", lambda key: key)
    monkeypatch.setattr(pod_config, "_taint_value", lambda value: value)
    run = run_arc(gpu_pool_stack(taints=[{"key": key, "value": value}]))
    pool: dict[str, Any] = run.one(NODE_POOL, "oke-gpu").inputs
    return base64.b64decode(pool["nodeMetadata"]["user_data"]).decode()


@pytest.mark.parametrize(
    ("key", "value"),
    [("nvidia.com/gpu", PAYLOAD), (KEY_PAYLOAD, "present"), (KEY_PAYLOAD, PAYLOAD)],
    ids=["value", "key", "both"],
)
def test_a_taint_past_validation_stays_data_in_the_planned_boot_script(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, key: str, value: str
) -> None:
    script = planned_user_data(monkeypatch, key, value)
    done, sandbox = run_boot_script(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert pwned(sandbox) == []
    assert argv(sandbox / "curl.argv") == [
        "--fail",
        "-H",
        "Authorization: Bearer Oracle",
        "-L0",
        INIT_URL,
    ]
    assert argv(sandbox / "init.argv") == [
        "--kubelet-extra-args",
        f"--register-with-taints={key}={value}:NoSchedule",
    ]


def test_a_taint_built_without_validation_stays_data(tmp_path: Path) -> None:
    """The renderer itself, given models that never saw a validator (model_construct)."""
    taints = [
        Taint.model_construct(key="ci/a10", value=PAYLOAD, effect="NoExecute"),
        Taint.model_construct(key="nvidia.com/gpu", value="present", effect="NoSchedule"),
    ]
    script = taint_user_data(OkeGpuPool.model_construct(taints=taints))
    assert script is not None
    done, sandbox = run_boot_script(script, tmp_path)
    assert done.returncode == 0, done.stderr
    assert pwned(sandbox) == []
    assert argv(sandbox / "init.argv") == [
        "--kubelet-extra-args",
        f"--register-with-taints=ci/a10={PAYLOAD}:NoExecute,nvidia.com/gpu=present:NoSchedule",
    ]


def test_the_harness_sees_an_injection_in_the_old_rendering(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Canary: the pre-fix line (the flag interpolated inside double quotes) runs the
    payload in this harness, so the tests above would fail on a regression."""
    script = planned_user_data(monkeypatch, "nvidia.com/gpu", PAYLOAD)
    head, _, _ = script.partition(f"bash {INIT_SCRIPT} ")
    old = (
        f"{head}bash {INIT_SCRIPT} --kubelet-extra-args "
        f'"--register-with-taints=nvidia.com/gpu={PAYLOAD}:NoSchedule"\n'
    )
    _, sandbox = run_boot_script(old, tmp_path)
    assert pwned(sandbox) == ["work/PWNED"]


def test_valid_taints_render_the_bytes_nodes_already_boot_with() -> None:
    """Quoting changes nothing for valid taints: the node pool's user data (and so the
    node pool) stays as deployed."""
    script = taint_user_data(OkeGpuPool())
    assert script == (
        "#!/bin/bash\n"
        "set -euo pipefail\n"
        'curl --fail -H "Authorization: Bearer Oracle" -L0 '
        "http://169.254.169.254/opc/v2/instance/metadata/oke_init_script "
        "| base64 --decode >/var/run/oke-init.sh\n"
        "bash /var/run/oke-init.sh --kubelet-extra-args "
        '"--register-with-taints=nvidia.com/gpu=present:NoSchedule"\n'
    )
