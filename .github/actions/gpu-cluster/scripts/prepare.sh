#!/usr/bin/env bash
# Step prepare: this cluster's folder under the job's temp dir and the paths every later
# step reads ($GPU_CI_WORK/env), and the key of the cached virtualenv.
# Environment (from action.yml): INPUT_CLUSTER_NAME, GPU_CI_WORK, GPU_CI_CACHE (under the
# runner's tool cache, a path that is the same on every run, as a cached virtualenv needs),
# GPU_CI_BASE_PYTHON and GPU_CI_PYTHON_VERSION (actions/setup-python's outputs),
# GITHUB_ACTION_PATH. GPU_CI_PROJECT, when set, is where the stack file goes (tests);
# otherwise the program's own folder, as `pulumi up` needs. The Pulumi CLI is not among the
# paths: every step takes it from $GPU_CI_WORK/pulumi (lib.sh's work_folder).
GPU_CI_STEP=prepare
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

name="${INPUT_CLUSTER_NAME:-}"
is_cluster_name "$name" ||
  die "cluster-name '$name' is not a kind cluster name (lowercase letters, digits and '-', at most 32)"
[ "${GPU_CI_WORK##*/}" = "$name" ] || die "GPU_CI_WORK ($GPU_CI_WORK) is not the folder of cluster $name"
work_folder
: "${GPU_CI_CACHE:?GPU_CI_CACHE is not set (action.yml sets it)}"
[ -x "${GPU_CI_BASE_PYTHON:-}" ] ||
  die "no Python at '${GPU_CI_BASE_PYTHON:-}' (actions/setup-python's python-path)"

program="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd -P)"
[ -f "$program/Pulumi.yaml" ] && [ -f "$program/requirements.txt" ] ||
  die "$program is not the gpu-ci program (no Pulumi.yaml and requirements.txt)"
project="${GPU_CI_PROJECT:-$program}"
stack="gpu-cluster-$name"
python_version="${GPU_CI_PYTHON_VERSION:-unknown}"

mkdir -p "$GPU_CI_WORK" "$GPU_CI_CACHE/tools"
requirements="$(sha256_of "$program/requirements.txt")"
arch="$(uname -m)"
# A virtualenv works only where it was made, with the interpreter it was made from: both
# paths are in its key, with the requirements it holds.
where="$(printf '%s\n%s\n' "$GPU_CI_CACHE/venv" "$GPU_CI_BASE_PYTHON" | sha256sum)"
python_key="gpu-ci-venv-v1-linux-$arch-py$python_version-${requirements:0:32}-${where:0:12}"

{
  echo "# Written by the gpu-cluster action's prepare step; read by its later steps."
  echo "GPU_CI_CLUSTER=$name"
  echo "GPU_CI_STACK=$stack"
  echo "GPU_CI_PROGRAM=$program"
  echo "GPU_CI_PROJECT=$project"
  echo "GPU_CI_CACHE=$GPU_CI_CACHE"
  echo "GPU_CI_VENV=$GPU_CI_CACHE/venv"
  echo "GPU_CI_BASE_PYTHON=$GPU_CI_BASE_PYTHON"
  echo "GPU_CI_PYTHON_KEY=$python_key"
} >"$GPU_CI_WORK/env"

output python-key "$python_key"
log "cluster $name: stack $stack, state and outputs under $GPU_CI_WORK"
