#!/usr/bin/env bash
# Step inputs, the first for every command, before any other step reads an input: the
# command (up, collect or destroy); helm/kind-action's inputs, which a workflow moved over from
# kind-action may still give, each taken as an alias of this action's input where it
# means the same (cluster_name, node_image) or refused, naming what to use instead, never
# ignored; then the cluster's name, checked (the later steps keep its state in a folder
# named after it, $RUNNER_TEMP/gpu-ci/NAME); then the two inputs the steps before configure
# use, python-version (actions/setup-python) and cache (actions/cache), so that none of
# those steps runs on a bad value: every other input is configure's, which needs the
# program's virtualenv (its plan is the program's own). Each problem is one annotation titled after
# its input that names the input and the value given (escaped: a line break in a value
# never reaches the runner as a workflow command); then one line counts them and the step
# exits 1, and no later step runs.
# Environment (action.yml): INPUT_COMMAND, INPUT_CLUSTER_NAME, INPUT_NODE_IMAGE,
# INPUT_PYTHON_VERSION, INPUT_CACHE (unset: their defaults), and KIND_ACTION_<NAME> for each
# kind-action input NAME. Outputs: cluster-name and node-image
# (the alias's value where the workflow gave that), aliases (`cluster-name=cluster_name`:
# the names configure gives its problems).
GPU_CI_STEP=inputs
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

problems=0
# problem INPUT VALUE CAUSE: one annotation, titled after the input.
problem() {
  annotation error "gpu-ci input $1" "input $1 '$2': $3"
  problems=$((problems + 1))
}

readonly REGISTRY="this action runs no local registry: build the job's images into this \
runner's Docker and list them in load-images, which loads them into the nodes"
# kind-action's inputs with no counterpart here (helm/kind-action's action.yml), and what
# to do instead. A flag's `false` is what this action does anyway: honoured, not refused.
declare -A REFUSED=(
  [version]="the kind release: this action installs gpu-ci's pinned kind, SHA-256 verified; \
drop it (another release: its version and SHA-256 as gpu-ci:host.versions.kind in a \
stack-config file)"
  [kubectl_version]="this action installs gpu-ci's pinned kubectl, SHA-256 verified; drop it \
(another release: its version and SHA-256 as gpu-ci:host.versions.kubectl in a stack-config file)"
  [config]="this action writes the kind cluster's config itself (nvkind's): give the workers' \
GPUs with gpus, the node image with node-image, and other cluster settings as gpu-ci:cluster \
in a stack-config file"
  [kubeconfig]="this action writes the cluster's kubeconfig itself (mode 0600), names it in its \
kubeconfig output and sets KUBECONFIG for the job's later steps; drop it"
  [wait]="this action waits for the cluster with its own checks, with no duration to set (the \
job's timeout-minutes bounds it); drop it"
  [verbosity]="this action runs kind through nvkind at its default verbosity; drop it"
  [install_only]="this action always makes the cluster; drop it"
  [ignore_failed_clean]="this action has no post step: end the job with a step of this action \
with command: destroy and if: always(), and continue-on-error: true on it to ignore a failed \
clean-up"
  [registry]="$REGISTRY"
  [registry_image]="$REGISTRY"
  [registry_name]="$REGISTRY"
  [registry_port]="$REGISTRY"
  [registry_enable_delete]="$REGISTRY"
)
readonly FLAGS=" install_only registry registry_enable_delete ignore_failed_clean "

# action.yml's steps run on `inputs.command == 'up'` (or 'collect', 'destroy'), which GitHub
# compares ignoring case: only the three words as written are taken.
command="${INPUT_COMMAND-up}"
case "$command" in
  up | collect | destroy) ;;
  *) problem command "$command" "must be up (make the cluster), collect (a diagnostics bundle of it) \
or destroy (delete the one an up of this job made)" ;;
esac

for input in version config kubeconfig wait verbosity kubectl_version install_only \
  ignore_failed_clean registry registry_image registry_name registry_port registry_enable_delete; do
  variable="KIND_ACTION_${input^^}"
  value="${!variable:-}"
  if [ -z "$value" ] || { [[ $FLAGS == *" $input "* ]] && [ "$value" = false ]; }; then
    continue
  fi
  problem "$input" "$value" "helm/kind-action's input, which this action refuses: ${REFUSED[$input]}"
done

# The aliases: kind-action's name for one of this action's inputs, the same meaning.
aliases=()
name="${INPUT_CLUSTER_NAME:-kind}"
name_input=cluster-name
if [ -n "${KIND_ACTION_CLUSTER_NAME:-}" ]; then
  # cluster-name's default (kind) cannot be told from a `cluster-name: kind`: the alias wins.
  if [ "$name" != kind ] && [ "$name" != "$KIND_ACTION_CLUSTER_NAME" ]; then
    problem cluster_name "$KIND_ACTION_CLUSTER_NAME" \
      "helm/kind-action's name for cluster-name, which is '$name': give one of the two"
  fi
  name="$KIND_ACTION_CLUSTER_NAME"
  name_input=cluster_name
  aliases+=(cluster-name=cluster_name)
fi
is_cluster_name "$name" ||
  problem "$name_input" "$name" \
    "is not a kind cluster name (lowercase letters, digits and '-', at most 32)"

image="${INPUT_NODE_IMAGE:-}"
if [ -n "${KIND_ACTION_NODE_IMAGE:-}" ]; then
  if [ -n "$image" ] && [ "$image" != "$KIND_ACTION_NODE_IMAGE" ]; then
    problem node_image "$KIND_ACTION_NODE_IMAGE" \
      "helm/kind-action's name for node-image, which is '$image': give one of the two"
  fi
  image="$KIND_ACTION_NODE_IMAGE"
  aliases+=(node-image=node_image)
fi

# actions/setup-python takes many spellings (ranges, PyPy, `3.x`, one a line); an empty one
# makes it read .python-version from the workspace, the PR's own file (actions/setup-python
# src/setup-python.ts @ v5.6.0, resolveVersionInputFromDefaultFile). The program needs
# CPython 3.11 or newer (pyproject.toml's requires-python), exactly as X.Y or X.Y.Z.
python_version="${INPUT_PYTHON_VERSION-3.11}"
[[ $python_version =~ ^3\.(1[1-9]|[2-9][0-9])(\.(0|[1-9][0-9]*))?$ ]] ||
  problem python-version "$python_version" \
    "must be a CPython release of 3.11 or newer, as X.Y or X.Y.Z (the program's requires-python), \
e.g. 3.11"
# action.yml runs the cache steps on `inputs.cache == 'true'` (GitHub compares ignoring
# case): any other word would turn the cache off without a word.
cache="${INPUT_CACHE-true}"
case "${cache,,}" in
  true | false) ;;
  *) problem cache "$cache" "must be true (cache the virtualenv, the CLI, plugins and host tools) or false" ;;
esac

if [ "$problems" -gt 0 ]; then
  log "stopped before anything was done: $problems problem(s) with the inputs, each in an annotation above"
  exit 1
fi
output cluster-name "$name"
output node-image "$image"
output aliases "${aliases[*]}"
