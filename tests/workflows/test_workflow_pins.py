"""What the workflows run is pinned, and runs once.

- every `uses:` of every workflow, action and example is a full commit SHA with its release
  as a `# vX.Y.Z` comment (local `./` actions excepted, and the example's placeholder for
  gpu-ci's own commit, which a consumer fills in);
- the Pulumi CLI is an exact version, the release of the Python SDK in requirements.txt,
  checked after install, and the provider plugins are installed at exactly the versions of
  the provider SDKs in requirements.txt;
- a preview and an update of one stack share one concurrency group (the backend's stack
  lock would refuse the second with 409), never cancelled;
- the tests run once per pull request and once per push to main.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.github_tools import REPO, load_github_yaml

WORKFLOWS = REPO / ".github" / "workflows"
FILES = sorted(
    [
        *WORKFLOWS.glob("*.y*ml"),
        *(REPO / ".github" / "actions").rglob("*.y*ml"),
        *(REPO / "examples").glob("*.y*ml"),
    ]
)
USES = re.compile(r"^\s*(?:-\s*)?uses:\s*(\S+)(.*)$", re.MULTILINE)
SHA_PIN = re.compile(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}")
RELEASE = re.compile(r"#\s*v[0-9]+\.[0-9]+\.[0-9]+\s*$")
PLACEHOLDER = "OWNER/gpu-ci/"  # the example's: the gpu-ci commit a consumer adopts
EXACT = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+")
PULUMI_ACTION = "pulumi/actions@"


def _requirements() -> dict[str, str]:
    text = (REPO / "requirements.txt").read_text()
    return dict(re.findall(r"^(pulumi(?:-[a-z]+)?)==([0-9.]+)", text, re.MULTILINE))


def _stack_job() -> dict[str, Any]:
    job: dict[str, Any] = load_github_yaml(WORKFLOWS / "pulumi-stack.yml")["jobs"]["pulumi"]
    return job


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_uses_is_a_commit_sha_with_its_release(path: Path) -> None:
    refs = USES.findall(path.read_text())
    for ref, rest in refs:
        if ref.startswith("./") or ref.startswith(PLACEHOLDER):
            continue
        assert SHA_PIN.fullmatch(ref), f"{path.name}: {ref} is not pinned by a full commit SHA"
        assert RELEASE.search(rest), f"{path.name}: {ref} has no `# vX.Y.Z` comment"


def test_the_pin_scan_sees_every_file_and_action() -> None:
    """Not vacuous: the workflows, the composite action and the example, Pulumi's actions."""
    names = {p.name for p in FILES}
    assert {"pulumi-stack.yml", "action.yml", "kubeflow-trainer-gpu-e2e.yaml"} <= names
    refs = {ref for p in FILES for ref, _ in USES.findall(p.read_text())}
    assert any(r.startswith(PULUMI_ACTION) for r in refs)
    assert any(r.startswith("pulumi/auth-actions@") for r in refs)


def test_the_pulumi_cli_is_the_exact_release_of_the_sdk() -> None:
    job = _stack_job()
    version = job["env"]["PULUMI_VERSION"]
    assert EXACT.fullmatch(version), f"PULUMI_VERSION {version!r} is not an exact version"
    assert version == _requirements()["pulumi"]
    steps = job["steps"]
    actions = [i for i, s in enumerate(steps) if str(s.get("uses", "")).startswith(PULUMI_ACTION)]
    assert actions, "no pulumi/actions step"
    for i in actions:
        assert steps[i]["with"]["pulumi-version"] == "${{ env.PULUMI_VERSION }}", steps[i]
    install, command = actions[0], actions[-1]
    assert "command" not in steps[install]["with"]  # install only
    assert steps[command]["with"]["command"] == "${{ inputs.command }}"
    check = next(i for i, s in enumerate(steps) if "pulumi version" in str(s.get("run", "")))
    assert install < check < command
    assert '"v$PULUMI_VERSION"' in steps[check]["run"]


def test_the_provider_plugins_are_the_sdks_versions() -> None:
    steps = _stack_job()["steps"]
    step = next(s for s in steps if "PULUMI_PLUGINS" in (s.get("env") or {}))
    plugins = {
        fields[0]: fields[1]
        for fields in (line.split() for line in step["env"]["PULUMI_PLUGINS"].splitlines())
        if fields
    }
    providers = {
        name.removeprefix("pulumi-"): version
        for name, version in _requirements().items()
        if name != "pulumi"
    }
    assert plugins == providers
    assert "plugin install resource" in step["run"] and "--exact" in step["run"]
    assert "--checksum" in step["run"]  # used for a digest once one is listed
    index = steps.index(step)
    command = next(i for i, s in enumerate(steps) if (s.get("with") or {}).get("command"))
    assert index < command


def _group(inputs: dict[str, str]) -> str:
    group = str(_stack_job()["concurrency"]["group"])
    resolved = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], group)
    assert "${{" not in resolved, f"the group depends on more than the inputs: {group}"
    return resolved


def test_previews_and_updates_of_a_stack_share_one_group() -> None:
    preview = {"command": "preview", "stack": "gpu-dev", "pr-number": "27", "ref": "a" * 40}
    up = {"command": "up", "stack": "gpu-dev", "pr-number": "", "ref": "b" * 40}
    assert _group(preview) == _group(up)
    assert _group(up) != _group(up | {"stack": "apps-dev"})
    concurrency = _stack_job()["concurrency"]
    assert concurrency["cancel-in-progress"] is False  # never an update cut half-way
    assert concurrency["queue"] == "max"  # a waiting update is never dropped for a preview
    # Both paths go through this job.
    preview_job = load_github_yaml(WORKFLOWS / "preview.yml")["jobs"]["preview"]
    deploy_job = load_github_yaml(WORKFLOWS / "deploy.yml")["jobs"]["up"]
    for job, command in ((preview_job, "preview"), (deploy_job, "up")):
        assert job["uses"] == "./.github/workflows/pulumi-stack.yml"
        assert job["with"]["command"] == command
        assert "concurrency" not in job


def _events(data: dict[str, Any]) -> dict[str, Any]:
    on = data["on"]
    return dict.fromkeys(on) if isinstance(on, list) else dict(on)


@pytest.mark.parametrize("event", ["push", "pull_request"])
def test_the_tests_run_once_per_change(event: str) -> None:
    """A push to main runs them as deploy's first job; a PR, through test.yml's trigger."""
    runs = 0
    for path in sorted(WORKFLOWS.glob("*.y*ml")):
        data = load_github_yaml(path)
        events = _events(data)
        if event not in events:
            continue
        branches = (events[event] or {}).get("branches")
        if event == "push" and branches is not None and "main" not in branches:
            continue
        if path.name == "test.yml":
            runs += 1
        runs += sum(
            job.get("uses") == "./.github/workflows/test.yml" for job in data["jobs"].values()
        )
    assert runs == 1, f"{event}: the tests run {runs} times"
