"""The host script-parameter models refuse, by behaviour, what the scripts cannot take.

Kills mutants of components/host/params/{step,runner,bootstrap}.py that widened a
pattern or dropped a bound and still passed the rest of the suite.
"""

from __future__ import annotations

import re

import pytest

from components.host.params.bootstrap import AuthorizedKeysParams
from components.host.params.runner import MAX_RUNNER_LABELS, check_runner_labels
from components.host.params.step import USER_PATTERN, check_https_url

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f ci"


@pytest.mark.parametrize("user", ["ubuntu", "_svc", "gpu-ci-runner", "a" * 32, "u1_2-3"])
def test_a_unix_user_name_is_accepted(user: str) -> None:
    assert re.fullmatch(USER_PATTERN, user)
    assert AuthorizedKeysParams(user=user, keys=(KEY,)).user == user


@pytest.mark.parametrize(
    "user", ["", "Ubuntu", "1abc", "-abc", "a" * 33, "a b", "a;b", "a$(id)", "ubuntu\n", "a.b"]
)
def test_anything_else_is_refused_as_a_user(user: str) -> None:
    with pytest.raises(ValueError, match="user"):
        AuthorizedKeysParams(user=user, keys=(KEY,))


def test_runner_labels_take_one_to_a_hundred() -> None:
    assert check_runner_labels(["gpu"]) == ("gpu",)
    assert len(check_runner_labels([f"l{i}" for i in range(MAX_RUNNER_LABELS)])) == 100
    for labels in ([], [f"l{i}" for i in range(MAX_RUNNER_LABELS + 1)]):
        with pytest.raises(ValueError, match=f"{len(labels)} labels: a runner takes 1 to 100"):
            check_runner_labels(labels)


@pytest.mark.parametrize("label", ["", "gpu\n", "a b", "a,b", "a$b"])
def test_a_bad_runner_label_is_refused(label: str) -> None:
    with pytest.raises(ValueError, match="label"):
        check_runner_labels(["ok", label])


@pytest.mark.parametrize(
    "url", ["http://example.com/x", "https://example.com/a b", "https://x/'y'", "https://x\n"]
)
def test_a_url_a_script_cannot_hold_as_is_is_refused_with_the_fix(url: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_https_url(url)
    assert str(refused.value) == (
        "not an https:// URL without spaces, quotes or line breaks (it is written into a host "
        "script); give the download's plain https:// URL"
    )
    assert check_https_url("https://example.com/nvkind-v0.1.0.tar.gz") == (
        "https://example.com/nvkind-v0.1.0.tar.gz"
    )
