# shellcheck shell=bash
# Shared by the gpu-cluster action's shell steps (sourced after GPU_CI_STEP is set).
#
# Contract, as for the host steps (components/host/scripts/lib.sh):
#   * every failure ends non-zero with one stderr line `gpu-ci step <name>: <cause>`,
#     and the same cause as an `::error` annotation titled `gpu-ci step <name>`;
#   * nothing secret is ever printed (the kubeconfig and passphrase stay in 0600 files);
#   * no value the workflow gave is ever read by the runner as a workflow command (below).
#
# Environment: GPU_CI_WORK (this cluster's folder, $RUNNER_TEMP/gpu-ci/NAME: state, stack
# outputs, kubeconfig, the Pulumi CLI) is set by action.yml and checked by `work_folder`
# before a step uses it; $GPU_CI_WORK/env, written by prepare.sh, holds the rest (paths of
# the program, the cache, the virtualenv). GPU_CI_ROOT prefixes host paths and
# GPU_CI_PROJECT is where the stack file goes (tests run the steps under a scratch root);
# neither may be in the workspace.

set -Eeuo pipefail
umask 022

: "${GPU_CI_STEP:?set GPU_CI_STEP before sourcing lib.sh}"
: "${GPU_CI_WORK:?GPU_CI_WORK is not set (action.yml sets it)}"
GPU_CI_ROOT="${GPU_CI_ROOT:-}"
# fetch's attempts and backoff (common.sh's names), from GPU_CI_RETRY_* (tests: no sleeps).
RETRY_ATTEMPTS="${GPU_CI_RETRY_ATTEMPTS:-6}"
RETRY_BASE_SECONDS="${GPU_CI_RETRY_BASE_SECONDS:-2}"
# A kind cluster name as the action takes it: the folder under $RUNNER_TEMP/gpu-ci and
# the stack gpu-cluster-NAME are named after it, so no `/`, `.` or line break.
readonly CLUSTER_NAME='^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$'
GPU_CI_RESUME=""  # the token that turns workflow commands back on, while they are off

trap 'gpu_ci_on_error "$?" "$BASH_COMMAND"' ERR

gpu_ci_on_error() {
  die "command failed (exit $1): $2" "$1"
}

# The runner reads each line a step prints, stdout and stderr, for workflow commands:
# `::NAME PROPS::DATA` at the start of a line (after spaces), and the older `##[NAME]DATA`
# anywhere in it (actions/runner src/Runner.Common/ActionCommand.cs @079cdb1, TryParseV2
# and TryParse). A value the workflow gave is printed only through these:
#
# escape_data TEXT: a command's data as @actions/core escapes it (packages/core/src/
# command.ts @a944251, escapeData): % CR LF as %25 %0D %0A, so TEXT stays on its line.
escape_data() {
  local text="$1"
  text="${text//'%'/%25}"
  text="${text//$'\r'/%0D}"
  printf '%s' "${text//$'\n'/%0A}"
}

# escape_property TEXT: a command's property (`title=`), escapeProperty: also `:` `,`.
escape_property() {
  local text
  text="$(escape_data "$1")"
  text="${text//:/%3A}"
  printf '%s' "${text//,/%2C}"
}

# escape_log TEXT: TEXT on a log line of ours (after `gpu-ci step NAME: `): escape_data,
# and `##[` broken as `##%5B`, since the runner finds that command anywhere in a line.
escape_log() {
  local text
  text="$(escape_data "$1")"
  printf '%s' "${text//'##['/'##%5B'}"
}

# annotation LEVEL TITLE MESSAGE: a workflow command (`::error` or `::warning`), its title
# and message escaped, so that a multi-line cause stays one annotation and a value given
# to the action cannot start a workflow command of its own.
annotation() {
  resume_commands
  printf '::%s title=%s::%s\n' "$1" "$(escape_property "$2")" "$(escape_data "$3")"
}

# stop_commands / resume_commands: around output that is not the action's own (pulumi's,
# which repeats values of the stack), the runner's stop-commands with a random token, so
# none of its lines is a workflow command; on stdout, where the annotations go, so that
# the runner reads them in order. Resumed before any annotation and at exit.
stop_commands() {
  resume_commands
  GPU_CI_RESUME="gpu-ci-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  printf '::stop-commands::%s\n' "$GPU_CI_RESUME"
}

resume_commands() {
  if [ -n "$GPU_CI_RESUME" ]; then
    printf '::%s::\n' "$GPU_CI_RESUME"
    GPU_CI_RESUME=""
  fi
}
trap resume_commands EXIT

# annotate LEVEL STEP MESSAGE: an annotation titled after the step.
annotate() {
  annotation "$1" "gpu-ci step $2" "$3"
}

# die CAUSE [EXIT_CODE]: fail naming the step, in the log and as an annotation.
die() {
  trap - ERR
  printf 'gpu-ci step %s: %s\n' "$GPU_CI_STEP" "$(escape_log "$1")" >&2
  annotate error "$GPU_CI_STEP" "$1"
  exit "${2:-1}"
}

warn() {
  log "$*"
  annotate warning "$GPU_CI_STEP" "$*"
}

# log, as_root, backoff, fetch, sha256_of: shared with the host steps, which have them
# inlined. The action is inside the program's checkout, four folders below its root (as
# prepare.sh finds the program); their failures go through this file's die.
gpu_ci_common="$(dirname "${BASH_SOURCE[0]}")/../../../../components/host/scripts/common.sh"
[ -f "$gpu_ci_common" ] ||
  die "$gpu_ci_common is missing: the action runs from a checkout of the gpu-ci program"
# shellcheck source=SCRIPTDIR/../../../../components/host/scripts/common.sh
source "$gpu_ci_common"

# log MESSAGE: common.sh's log line, MESSAGE escaped (escape_log): it may hold a value.
log() {
  printf 'gpu-ci step %s: %s\n' "$GPU_CI_STEP" "$(escape_log "$*")" >&2
}

# output KEY VALUE: a step output; a VALUE with a line break goes in the heredoc form with a
# random delimiter, as @actions/core's prepareKeyValueMessage writes it (a line of VALUE
# can then never be read as an output of its own: FileCommandManager.cs, EnvFileKeyValuePairs).
output() {
  local file="${GITHUB_OUTPUT:-/dev/null}" marker
  if [[ $2 == *[$'\r\n']* ]]; then
    marker="ghadelimiter_$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
    [[ $2 != *"$marker"* ]] || die "output $1 holds its own delimiter"
    printf '%s<<%s\n%s\n%s\n' "$1" "$marker" "$2" "$marker" >>"$file"
  else
    printf '%s=%s\n' "$1" "$2" >>"$file"
  fi
}

# is_cluster_name NAME: NAME matches CLUSTER_NAME.
is_cluster_name() {
  [[ $1 =~ $CLUSTER_NAME ]]
}

# resolved DIR: DIR with every symlink resolved (bash's own `cd -P`, no tool from PATH);
# a part that does not exist yet is kept as written.
resolved() {
  local dir="$1" rest=""
  while [ ! -d "$dir" ] && [ "$dir" != / ] && [ -n "$dir" ]; do
    rest="/${dir##*/}$rest"
    dir="${dir%/*}"
  done
  dir="$(cd -P -- "${dir:-/}" && pwd)" || return 1
  printf '%s' "${dir%/}$rest"
}

# in_workspace PATH: PATH, resolved, is $GITHUB_WORKSPACE or under it (true when PATH
# cannot be resolved: a step refuses what it cannot place).
in_workspace() {
  local path
  [ -n "$gpu_ci_workspace" ] || return 1
  path="$(resolved "$1")" || return 0
  [ "$path" = "$gpu_ci_workspace" ] || [[ $path == "$gpu_ci_workspace"/* ]]
}
gpu_ci_workspace=""
if [ -n "${GITHUB_WORKSPACE:-}" ]; then
  gpu_ci_workspace="$(resolved "$GITHUB_WORKSPACE")" ||
    die "GITHUB_WORKSPACE ($GITHUB_WORKSPACE) cannot be resolved"
fi

# trusted_path: PATH without what the workspace can hold, so that no tool a step runs (curl,
# tar, sudo, docker, sha256sum) is a file of the repository the job checked out: entries
# that are not absolute (`.`, an empty one: the step's working directory, the workspace),
# that do not exist, or that resolve into $GITHUB_WORKSPACE are dropped.
trusted_path() {
  local entry kept="" dropped=()
  local -a entries
  IFS=: read -r -a entries <<<"$PATH"
  for entry in "${entries[@]}"; do
    if [[ $entry != /* ]] || [ ! -d "$entry" ] || in_workspace "$entry"; then
      dropped+=("${entry:-(empty)}")
    else
      kept="${kept:+$kept:}$entry"
    fi
  done
  PATH="$kept"
  if [ "${#dropped[@]}" -gt 0 ]; then
    log "PATH entries left out (in the workspace, relative or missing): ${dropped[*]}"
  fi
}
trusted_path
# Nothing from the job's environment decides which Python code runs (the program's
# virtualenv does): PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, ...
for gpu_ci_variable in $(compgen -e); do
  case "$gpu_ci_variable" in
    PYTHON*) unset "$gpu_ci_variable" ;;
  esac
done
unset gpu_ci_variable

# work_folder: check GPU_CI_WORK before a step reads or writes anything there. It must be
# $RUNNER_TEMP/gpu-ci/NAME for a cluster name NAME (a cluster-name of `../../x` would
# otherwise lead the steps to a folder of the workspace, its env file and `pulumi`),
# with no symlink on the way and outside the workspace; GPU_CI_ROOT and GPU_CI_PROJECT,
# when set, outside the workspace too. Then GPU_CI_PULUMI is the CLI install.sh extracts
# there from the verified tarball, and only that.
work_folder() {
  local temp="${RUNNER_TEMP:-}" name="${GPU_CI_WORK##*/}" hook
  [[ $temp == /* ]] || die "RUNNER_TEMP ('$temp') is not an absolute path (the runner sets it)"
  if [ "$GPU_CI_WORK" != "$temp/gpu-ci/$name" ] || ! is_cluster_name "$name"; then
    die "the cluster's folder '$GPU_CI_WORK' is not \$RUNNER_TEMP/gpu-ci/NAME for a kind cluster name NAME"
  fi
  if [ -L "$temp/gpu-ci" ] || [ -L "$GPU_CI_WORK" ]; then
    die "$GPU_CI_WORK is reached through a symbolic link; the action makes its own folder there"
  fi
  if in_workspace "$GPU_CI_WORK"; then
    die "the cluster's folder $GPU_CI_WORK is in the workspace"
  fi
  for hook in GPU_CI_ROOT GPU_CI_PROJECT; do
    if [ -n "${!hook:-}" ] && in_workspace "${!hook}"; then
      die "$hook (${!hook}) is in the workspace"
    fi
  done
  GPU_CI_PULUMI="$GPU_CI_WORK/pulumi/pulumi"
  readonly GPU_CI_PULUMI
}

# What each file an earlier step wrote may set: the env file's paths (prepare.sh) and
# plan.env's facts (configure.py). Nothing else, GPU_CI_WORK and GPU_CI_PULUMI least of all.
readonly ENV_KEYS=" CLUSTER STACK PROGRAM PROJECT CACHE VENV BASE_PYTHON PYTHON_KEY "
readonly PLAN_KEYS=" KIND_CLUSTER NODE_IMAGE USE_SUDO K8S_PROVIDER_URN PLUGINS IMAGES PLATFORM "

# load_env [FILE]: the GPU_CI_* values an earlier step wrote, as plain KEY=VALUE lines:
# $GPU_CI_WORK/env (prepare.sh: paths) by default, or plan.env (configure.py).
load_env() {
  local file="${1:-$GPU_CI_WORK/env}" keys="$ENV_KEYS" key value
  [ "$file" = "$GPU_CI_WORK/env" ] || keys="$PLAN_KEYS"
  [ -f "$file" ] || die "$file is missing: the action's earlier steps have not run for this cluster"
  while IFS='=' read -r key value; do
    case "$key" in
      '' | '#'*) continue ;;
    esac
    # The key whole (printf -v would evaluate a subscript such as KEY[$(...)]).
    [[ $key =~ ^GPU_CI_[A-Z0-9_]+$ ]] || die "unexpected line in $file: $key"
    if [[ $keys != *" ${key#GPU_CI_} "* ]] && [[ $keys != "$PLAN_KEYS" || $key != GPU_CI_TOOLS_* ]]; then
      die "unexpected key in $file: $key"
    fi
    printf -v "$key" '%s' "$value"
    export "${key?}"
  done <"$file"
}

# pulumi_env: what every Pulumi CLI call of the action runs with: the file backend and the
# generated passphrase under GPU_CI_WORK, no update checks, the CLI's own folder first on
# PATH (its language host `pulumi-language-python` lives beside it), and no other PULUMI_*
# variable of the job's (a token, a backend URL, a passphrase, a plugin path).
pulumi_env() {
  local variable
  for variable in $(compgen -e); do
    case "$variable" in
      PULUMI_*) unset "$variable" ;;
    esac
  done
  export PULUMI_HOME="$GPU_CI_WORK/pulumi-home"
  export PULUMI_CONFIG_PASSPHRASE_FILE="$GPU_CI_WORK/passphrase"
  export PULUMI_SKIP_UPDATE_CHECK=true
  export PULUMI_SKIP_CONFIRMATIONS=true
  export PATH="${GPU_CI_PULUMI%/*}:$PATH"
}
