"""The adopter's settings (issue #41): every setting a project makes to run the examples
is named where it reads (docs/ci-integration.md, the examples' headers), with its value: the
repository's and the runner group's settings that bind a fork, with GitHub's docs; the
environments, variables and secrets gpu-ci's workflows really read; the label the examples
gate on; Pulumi Cloud's OIDC trust as the workflow asks for it; `OWNER/gpu-ci`; where
`pulumi-sha256` comes from; and what the action runs before it checks its inputs, in
action.yml's order.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.workflows.adopter_docs import (
    ACTION,
    DOC,
    EXAMPLES,
    FENCE,
    LABEL_GATE,
    WORKFLOWS,
    ZEROS,
    backticked,
    flat,
    header,
    section,
    table_rows,
)
from tests.workflows.github_tools import REPO, load_github_yaml

# -- the gates that bind a fork -------------------------------------------------------------
APPROVAL = "Require approval for all external contributors"
APPROVAL_DOCS = (
    "docs.github.com/en/repositories/managing-your-repositorys-settings-and-features/"
    "enabling-features-for-your-repository/managing-github-actions-settings-for-a-repository"
    "#configuring-required-approval-for-workflows-from-public-forks"
)
GROUP_DOCS = (
    "docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
    "managing-access-to-self-hosted-runners-using-groups"
)


def test_the_doc_names_the_settings_that_bind_a_fork_with_their_values() -> None:
    text = section(DOC, "### The gates that bind a fork")
    said = flat(text)
    assert (
        "a fork can take the example's label check and its `environment:` out of its copy" in said
    )
    rows = {row[0]: row for row in table_rows(text, "| setting | where | choose | why |")}
    approval = rows["Approval for running fork pull request workflows from contributors"]
    assert approval[2].startswith(f"**{APPROVAL}**") and "all_external_contributors" in approval[2]
    assert APPROVAL_DOCS in approval[3]
    assert rows["Repository access of the runner group"][2].startswith("**Selected repositories**")
    public = rows['"Allow public repositories" on that runner group']
    assert public[2].startswith("**off**") and "`vm-launcher`" in public[2]
    assert "it is off by default" in public[3] and "allows_public_repositories" in public[3]
    assert GROUP_DOCS in rows["Repository access of the runner group"][3]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_each_example_names_the_settings_at_its_top(example: Path) -> None:
    said = header(example)
    assert "uses the PR's own copy of this file, which a fork can edit" in said
    assert f'"{APPROVAL}"' in said
    assert 'repository access "Selected repositories", this repository only' in said
    assert '"Allow public repositories" is off by default' in said
    assert APPROVAL_DOCS.replace(" ", "") in said.replace(" ", "")
    assert GROUP_DOCS in said
    (job,) = load_github_yaml(example)["jobs"].values()
    (label,) = set(LABEL_GATE.findall(" ".join(job["if"].split())))
    assert f"`{label}` label" in said and f"`{job['environment']}` environment" in said


# -- labels, environments, variables, secrets, OIDC -----------------------------------------
def used_by_the_workflows() -> tuple[set[str], set[str], set[str]]:
    """(environments, variables, secrets) gpu-ci's workflows read."""
    environments, variables, secrets = set(), set(), set()
    for path in WORKFLOWS:
        text = path.read_text()
        variables |= set(re.findall(r"vars\.([A-Z_][A-Z0-9_]*)", text))
        secrets |= set(re.findall(r"secrets\.([A-Z_][A-Z0-9_]*)", text)) - {"GITHUB_TOKEN"}
        # A job's `environment:`, literal or an expression; an expression's values are
        # what a step prints as `environment=NAME` (preview.yml's gate).
        environments |= set(re.findall(r"environment=([a-z][a-z0-9-]*)", text))
        for job in load_github_yaml(path)["jobs"].values():
            value = job.get("environment", "")
            value = value.get("name", "") if isinstance(value, dict) else value
            if value and "${{" not in value:
                environments.add(value)
    return environments, variables, secrets


def test_every_environment_variable_and_secret_the_workflows_read_is_named() -> None:
    text = section(DOC, "### Labels, environments, variables and secrets")
    named = backticked(text)
    environments, variables, secrets = used_by_the_workflows()
    assert environments == {"preview", "preview-fork"}
    assert variables == {"GPU_CI_DEPLOY_STACKS", "PULUMI_ORG", "PULUMI_BACKEND_URL"}
    rows = {row[0]: row for row in table_rows(text, "| what | in | set it up |")}
    for name in environments:
        assert f"environment `{name}`" in rows
    # The per-stack ones: deploy.yml and drift.yml run each stack in `${{ matrix.stack }}`.
    for name in ("deploy.yml", "drift.yml"):
        assert "environment: ${{ matrix.stack }}" in (REPO / ".github/workflows" / name).read_text()
    per_stack = rows[
        "an environment per deployed stack, named as the stack (`gpu-dev`, `apps-dev`, ...)"
    ]
    assert "deployment branches: selected, `main`" in per_stack[2]
    assert "deployment branches: no restriction" in rows["environment `preview`"][2]
    assert "required reviewers" in rows["environment `preview-fork`"][2]
    assert variables | secrets <= named, (variables | secrets) - named


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_the_examples_label_and_environment_are_set_up_in_the_doc(example: Path) -> None:
    rows = {
        row[0]: row
        for row in table_rows(
            section(DOC, "### Labels, environments, variables and secrets"),
            "| what | in | set it up |",
        )
    }
    (job,) = load_github_yaml(example)["jobs"].values()
    (label,) = set(LABEL_GATE.findall(" ".join(job["if"].split())))
    assert f"`gh label create {label} --repo ORG/REPO" in rows[f"label `{label}`"][2]
    assert f"gh label create {label}" in header(example)
    environment = rows[f"environment `{job['environment']}`"][2]
    assert "required reviewers" in environment and "no restriction" in environment


def test_the_oidc_trust_is_what_the_workflow_asks_for() -> None:
    said = flat(section(DOC, "### Pulumi Cloud: the OIDC trust"))
    job = load_github_yaml(REPO / ".github/workflows/pulumi-stack.yml")["jobs"]["pulumi"]
    (login,) = [s for s in job["steps"] if s.get("uses", "").startswith("pulumi/auth-actions@")]
    assert login["with"]["organization"] == "${{ vars.PULUMI_ORG }}"
    assert f"`requested-token-type: {login['with']['requested-token-type']}`" in said
    assert "https://www.pulumi.com/docs/administration/guides/oidc-issuers/github/" in said
    assert "register the issuer `https://token.actions.githubusercontent.com`" in said
    assert "`aud` is `urn:pulumi:org:ORG`" in said
    assert "`sub` is `repo:OWNER/REPO:environment:ENV`" in said
    for caller, name in (("deploy.yml", "up"), ("preview.yml", "preview")):
        permissions = load_github_yaml(REPO / ".github/workflows" / caller)["jobs"][name]
        assert permissions["permissions"]["id-token"] == "write"


# -- where gpu-ci comes from, the CLI's digest ----------------------------------------------
def gpu_ci_refs(example: Path) -> list[str]:
    """Every commit an example takes gpu-ci at: its `uses:` and its checkouts of gpu-ci."""
    refs = []
    for step in next(iter(load_github_yaml(example)["jobs"].values()))["steps"]:
        uses = step.get("uses", "")
        if uses.startswith("OWNER/gpu-ci/"):
            refs.append(uses.rpartition("@")[2])
        elif step.get("with", {}).get("repository") == "OWNER/gpu-ci":
            refs.append(step["with"]["ref"])
    return refs


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_owner_and_the_commit_are_one_placeholder_each_explained(example: Path) -> None:
    assert set(gpu_ci_refs(example)) == {ZEROS}
    said = header(example)
    assert (
        "OWNER/gpu-ci and the zeros: the owner/name of the GitHub repository you take gpu-ci from"
        in said
    )
    assert "the same in every place" in said
    doc = flat(section(DOC, "### Where gpu-ci comes from: `OWNER/gpu-ci` and the commit"))
    assert "`gh repo view --json nameWithOwner --jq .nameWithOwner`" in doc
    assert "`git rev-parse HEAD`" in doc and "gpu-ci names no published home" in doc


def test_the_pulumi_sha256_command_reads_the_file_the_install_step_reads() -> None:
    install = (ACTION / "scripts" / "install.sh").read_text()
    base = re.search(r'base="\$\{GPU_CI_PULUMI_DOWNLOADS:-([^}]+)\}"', install)
    assert base and 'fetch "$base/pulumi-$version-checksums.txt"' in install
    assert 'archive="pulumi-v$version-linux-$arch.tar.gz"' in install
    version = load_github_yaml(ACTION / "action.yml")["inputs"]["pulumi-version"]["default"]
    text = section(DOC, "### `pulumi-sha256`: the CLI's digest")
    (command,) = [b for lang, b in FENCE.findall(text) if lang == "sh"]
    assert command.strip() == (
        f"curl -fsSL {base.group(1)}/pulumi-{version}-checksums.txt | "
        f"grep ' pulumi-v{version}-linux-x64.tar.gz$'"
    )
    described = load_github_yaml(ACTION / "action.yml")["inputs"]["pulumi-sha256"]["description"]
    assert f"{base.group(1)}/pulumi-VERSION-checksums.txt" in " ".join(described.split())


# -- what runs before the inputs are checked ------------------------------------------------
def test_the_doc_lists_what_runs_before_the_check_in_the_actions_order() -> None:
    steps = load_github_yaml(ACTION / "action.yml")["runs"]["steps"]
    configure = next(i for i, s in enumerate(steps) if s.get("id") == "configure")
    before = [s.get("uses", "").partition("@")[0] or s["name"] for s in steps[:configure]]
    before = [b for b in before if not b.startswith("actions/cache/")]  # restore and save
    assert [b.split(" (")[0] for b in before] == [
        "gpu-ci inputs",
        "actions/setup-python",
        "gpu-ci prepare",
        "gpu-ci python-env",
    ]
    text = section(DOC, "### What runs before the inputs are checked")
    items = re.findall(r"^\d\. (.*?)(?=^\d\. |\Z)", text, re.MULTILINE | re.DOTALL)
    named = [re.match(r"`([^`]+)`", item).group(1) for item in items]  # type: ignore[union-attr]
    assert named == ["gpu-ci inputs", "actions/setup-python", "gpu-ci prepare", "gpu-ci configure"]
    assert "`gpu-ci python-env`" in items[2]
    # The first item names exactly the inputs the first step is given.
    given = {
        name.removeprefix("INPUT_").lower().replace("_", "-")
        for name in steps[0]["env"]
        if name.startswith("INPUT_")
    }
    assert given == backticked(items[0]) - {"gpu-ci inputs", "node_image"}
    others = {k for k in steps[0]["env"] if not k.startswith(("INPUT_", "KIND_ACTION_"))}
    assert others == {"GPU_CI_WORK"}  # the rest are helm/kind-action's names, as item 1 says


def test_no_page_says_nothing_is_downloaded_before_the_check() -> None:
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), ACTION / "action.yml"]
    for page in pages:
        assert "before anything is downloaded" not in flat(page.read_text()), page.name
