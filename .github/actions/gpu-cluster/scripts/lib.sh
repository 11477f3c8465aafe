# shellcheck shell=bash
# Shared by the gpu-cluster action's shell steps (sourced after GPU_CI_STEP is set).
#
# Contract, as for the host steps (components/host/scripts/lib.sh):
#   * every failure ends non-zero with one stderr line `gpu-ci step <name>: <cause>`,
#     and the same cause as an `::error` annotation titled `gpu-ci step <name>`;
#   * nothing secret is ever printed (the kubeconfig and passphrase stay in 0600 files).
#
# Environment: GPU_CI_WORK (this cluster's folder under the job's temp dir: state, stack
# outputs, kubeconfig) is set by action.yml; $GPU_CI_WORK/env, written by prepare.sh,
# holds the rest (paths of the program, the cache, the virtualenv, the Pulumi CLI).
# GPU_CI_ROOT prefixes host paths (tests run the steps under a scratch root).

set -Eeuo pipefail
umask 022

: "${GPU_CI_STEP:?set GPU_CI_STEP before sourcing lib.sh}"
: "${GPU_CI_WORK:?GPU_CI_WORK is not set (action.yml sets it)}"
GPU_CI_ROOT="${GPU_CI_ROOT:-}"
# fetch's attempts and backoff (common.sh's names), from GPU_CI_RETRY_* (tests: no sleeps).
RETRY_ATTEMPTS="${GPU_CI_RETRY_ATTEMPTS:-6}"
RETRY_BASE_SECONDS="${GPU_CI_RETRY_BASE_SECONDS:-2}"

trap 'gpu_ci_on_error "$?" "$BASH_COMMAND"' ERR

gpu_ci_on_error() {
  die "command failed (exit $1): $2" "$1"
}

# annotation LEVEL TITLE MESSAGE: a workflow command (`::error` or `::warning`); % CR LF
# escaped so that a multi-line cause stays one annotation (and a value given to the action
# cannot start a workflow command of its own), and `:` `,` in the title, a property.
annotation() {
  local title="$2" message="$3"
  message="${message//'%'/%25}"
  message="${message//$'\r'/%0D}"
  message="${message//$'\n'/%0A}"
  title="${title//'%'/%25}"
  title="${title//$'\r'/%0D}"
  title="${title//$'\n'/%0A}"
  title="${title//:/%3A}"
  title="${title//,/%2C}"
  printf '::%s title=%s::%s\n' "$1" "$title" "$message"
}

# annotate LEVEL STEP MESSAGE: an annotation titled after the step.
annotate() {
  annotation "$1" "gpu-ci step $2" "$3"
}

# die CAUSE [EXIT_CODE]: fail naming the step, in the log and as an annotation.
die() {
  trap - ERR
  printf 'gpu-ci step %s: %s\n' "$GPU_CI_STEP" "$1" >&2
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

# output KEY VALUE: a step output (a heredoc block when VALUE spans lines).
output() {
  local file="${GITHUB_OUTPUT:-/dev/null}"
  if [[ $2 == *$'\n'* ]]; then
    local marker
    marker="gpu_ci_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    printf '%s<<%s\n%s\n%s\n' "$1" "$marker" "$2" "$marker" >>"$file"
  else
    printf '%s=%s\n' "$1" "$2" >>"$file"
  fi
}

# load_env [FILE]: the GPU_CI_* values an earlier step wrote, as plain KEY=VALUE lines:
# $GPU_CI_WORK/env (prepare.sh: paths) by default, or plan.env (configure.py).
load_env() {
  local file="${1:-$GPU_CI_WORK/env}" key value
  [ -f "$file" ] || die "$file is missing: the action's earlier steps have not run for this cluster"
  while IFS='=' read -r key value; do
    case "$key" in
      GPU_CI_[A-Z_]*) printf -v "$key" '%s' "$value" && export "${key?}" ;;
      '' | '#'*) ;;
      *) die "unexpected line in $file: $key" ;;
    esac
  done <"$file"
}

# pulumi_env: what every Pulumi CLI call of the action runs with: the file backend and the
# generated passphrase under GPU_CI_WORK, no update checks, the CLI's own folder first on
# PATH (its language host `pulumi-language-python` lives beside it).
pulumi_env() {
  export PULUMI_HOME="$GPU_CI_WORK/pulumi-home"
  export PULUMI_CONFIG_PASSPHRASE_FILE="$GPU_CI_WORK/passphrase"
  export PULUMI_SKIP_UPDATE_CHECK=true
  export PULUMI_SKIP_CONFIRMATIONS=true
  export PATH="${GPU_CI_PULUMI%/*}:$PATH"
  unset PULUMI_ACCESS_TOKEN PULUMI_CONFIG_PASSPHRASE PULUMI_BACKEND_URL
}
