#!/usr/bin/env bash
# Step collect (`command: collect`, after the job's failed step and before `destroy`, with
# `if: failure()`): one diagnostics bundle of this job's cluster and its host, before the
# ephemeral runner takes them away. collect/collect.py does the work (its docstring lists what the
# bundle holds); this step hands it what the action knows: the cluster's kind name, the
# pinned tools the host-tools step installed and their stamps, the kubeconfig, this job's
# Pulumi state (for the stack's secret outputs, which are redacted), the passphrase (also
# redacted), the program's Python (for components/pins.py) and the `up` logs.
#
# Every source is bounded in time and a failed one is recorded, never fatal: the step exits
# 0 unless it cannot write the bundle. Inputs bundle-max-mb and bundle-timeout that are not
# whole numbers of at least 1 are warned about and the defaults used (a collect that
# stopped on its inputs would lose what it is for).
# Environment (action.yml): GPU_CI_WORK, INPUT_CLUSTER_NAME (the cluster-name, resolved),
# INPUT_BUNDLE_MAX_MB, INPUT_BUNDLE_TIMEOUT. Outputs: bundle ($RUNNER_TEMP/
# gpu-ci-diagnostics-NAME.tar.gz), bundle-dir (the same, unpacked), first-failure; the
# job summary gets the first failure and the bundle's name.
GPU_CI_STEP=collect
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cluster="${INPUT_CLUSTER_NAME:-}"
is_cluster_name "$cluster" || die "input cluster-name '$cluster' is not a kind cluster name \
(lowercase letters, digits and '-', at most 32); no bundle was written"
[ "${GPU_CI_WORK##*/}" = "$cluster" ] || die "GPU_CI_WORK ($GPU_CI_WORK) is not the folder of cluster $cluster"
work_folder
here="$(dirname "${BASH_SOURCE[0]}")"

# whole VARIABLE INPUT VALUE DEFAULT: VARIABLE set to VALUE when it is a whole number of
# at least 1, else to DEFAULT, with a warning.
whole() {
  if [[ $3 =~ ^[1-9][0-9]{0,5}$ ]]; then
    printf -v "$1" '%s' "$3"
  else
    warn "input $2 '$3' is not a whole number of at least 1; using $4"
    printf -v "$1" '%s' "$4"
  fi
}
max_mb="" timeout=""
whole max_mb bundle-max-mb "${INPUT_BUNDLE_MAX_MB:-100}" 100
whole timeout bundle-timeout "${INPUT_BUNDLE_TIMEOUT:-60}" 60

mkdir -p "$GPU_CI_WORK"
result="$GPU_CI_WORK/collect.result"
rm -f "$result"
args=(--out "$RUNNER_TEMP/gpu-ci-diagnostics-$cluster" --cluster "$cluster"
  --root "${GPU_CI_ROOT:-/}" --max-mb "$max_mb" --timeout "$timeout" --sudo
  --work "$GPU_CI_WORK" --redact-file "$GPU_CI_WORK/passphrase" --result "$result")
python=""
if [ -f "$GPU_CI_WORK/env" ]; then
  load_env
  [ ! -x "$GPU_CI_VENV/bin/python" ] || python="$GPU_CI_VENV/bin/python"
fi
if [ -f "$GPU_CI_WORK/plan.env" ]; then
  load_env "$GPU_CI_WORK/plan.env"
  args[3]="$GPU_CI_KIND_CLUSTER"  # the cluster's kind name, as the plan has it
  for tool in kind kubectl helm; do
    if [ -x "$GPU_CI_ROOT$GPU_CI_TOOLS_BINDIR/$tool" ]; then
      args+=("--$tool" "$GPU_CI_ROOT$GPU_CI_TOOLS_BINDIR/$tool")
    fi
  done
  args+=(--statedir "$GPU_CI_TOOLS_STATEDIR")
  [ "$GPU_CI_USE_SUDO" != true ] || args+=(--kind-as-root)
fi
if [ -x "$GPU_CI_PULUMI" ] && [ -d "$GPU_CI_WORK/state" ] && [ -n "${GPU_CI_STACK:-}" ]; then
  pulumi_env
  if "$GPU_CI_PULUMI" --non-interactive login "file://$GPU_CI_WORK/state" >&2; then
    args+=(--pulumi "$GPU_CI_PULUMI" --project "$GPU_CI_PROJECT" --stack "$GPU_CI_STACK")
  else
    log "pulumi login file://$GPU_CI_WORK/state failed: the stack's outputs are left out"
  fi
fi
[ ! -f "$GPU_CI_WORK/kubeconfig" ] || args+=(--kubeconfig "$GPU_CI_WORK/kubeconfig")
[ -z "$python" ] || args+=(--python "$python")
collector="${python:-$(command -v python3 || true)}"
[ -n "$collector" ] || die "no Python to run the collector: neither this job's virtualenv \
nor python3 on PATH; no bundle was written"

rc=0
stop_commands  # the collector's lines name pods and repeat their messages: text only
"$collector" "$here/collect/collect.py" "${args[@]}" || rc=$?
resume_commands
[ "$rc" -eq 0 ] && [ -f "$result" ] || die "cannot write the bundle (exit $rc); its cause is above" "$rc"

first="" bundle=""
while IFS='=' read -r key value; do
  case "$key" in
    bundle | bundle-dir | first-failure)
      output "$key" "$value"
      [ "$key" != bundle ] || bundle="$value"
      [ "$key" != first-failure ] || first="$value"
      ;;
  esac
done <"$result"
annotation notice "gpu-ci diagnostics" "first failure: $first"
tick='`'
{
  printf '### gpu-cluster: diagnostics bundle\n\n'
  printf '**First failure:** %s%s%s\n\n' "$tick" "${first//$tick/\'}" "$tick"
  printf '%s%s%s (SUMMARY.md first): upload it with actions/upload-artifact, as ' \
    "$tick" "${bundle##*/}" "$tick"
  printf 'examples/kubeflow-trainer-gpu-e2e.yaml does, which links it here.\n\n'
} >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
