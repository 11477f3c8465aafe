#!/usr/bin/env bash
# Step destroy (`command: destroy`, the job's last step, `if: always()`): delete the cluster
# the `up` of this job made, from the state it kept in this job's folder.
#
# Everything the platform put in the cluster goes with the cluster, so it is dropped from
# the state first (`pulumi state delete` of the cluster's Kubernetes provider and all that
# depends on it), rather than uninstalled release by release; `pulumi destroy` then runs
# the cluster's own delete step (`kind delete cluster`, its state and kubeconfig). Host
# packages stay, as for every `local` stack. Nothing to destroy (no `up` ran, or it failed
# before creating the stack) is no error: one warning names the cluster looked for.
# Environment (action.yml): GPU_CI_WORK, INPUT_CLUSTER_NAME (the cluster-name, resolved).
# Both are checked before anything is read (the inputs step checked the name too): the
# state, the env files and the Pulumi CLI come from this cluster's folder under
# $RUNNER_TEMP/gpu-ci, never from a folder a cluster-name such as `../../x` would name.
GPU_CI_STEP=destroy
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cluster="${INPUT_CLUSTER_NAME:-}"
is_cluster_name "$cluster" || die "input cluster-name '$cluster' is not a kind cluster name \
(lowercase letters, digits and '-', at most 32); nothing was destroyed"
[ "${GPU_CI_WORK##*/}" = "$cluster" ] || die "GPU_CI_WORK ($GPU_CI_WORK) is not the folder of cluster $cluster"
work_folder

# nothing_to_destroy WHY: a warning (once) naming the cluster looked for; exit 0.
nothing_to_destroy() {
  annotate warning "$GPU_CI_STEP" "no cluster '$cluster' to destroy: $1; nothing was \
destroyed (command: destroy deletes the cluster that an up with the same cluster-name made \
earlier in this job)"
  exit 0
}

if [ ! -f "$GPU_CI_WORK/env" ] || [ ! -f "$GPU_CI_WORK/plan.env" ] || [ ! -d "$GPU_CI_WORK/state" ]; then
  nothing_to_destroy "no up of this action set one up in this job (nothing under $GPU_CI_WORK)"
fi
load_env
load_env "$GPU_CI_WORK/plan.env"
[ -x "$GPU_CI_PULUMI" ] || die "the Pulumi CLI of this job's up ($GPU_CI_PULUMI) is gone"
pulumi_env
stack="$GPU_CI_STACK"
pulumi=("$GPU_CI_PULUMI" --non-interactive --cwd "$GPU_CI_PROJECT")

"${pulumi[@]}" login "file://$GPU_CI_WORK/state" >&2 || die "pulumi login file://$GPU_CI_WORK/state failed"
if ! "${pulumi[@]}" stack select "$stack" >&2; then
  nothing_to_destroy "this job's up stopped before it made the cluster"
fi

if [ -n "$GPU_CI_K8S_PROVIDER_URN" ]; then
  if "${pulumi[@]}" state delete --stack "$stack" --target-dependents --yes \
    "$GPU_CI_K8S_PROVIDER_URN" >&2; then
    log "dropped the cluster's contents from the state (they go with the cluster)"
  else
    log "the cluster's Kubernetes provider is not in the state; destroying everything"
  fi
fi

rc=0
stop_commands  # pulumi's output repeats values of the stack: text, never workflow commands
"${pulumi[@]}" destroy --stack "$stack" --yes --skip-preview --suppress-progress \
  --message "gpu-cluster action: destroy" 2>&1 | tee "$GPU_CI_WORK/destroy.log" || rc=$?
resume_commands
if [ "$rc" -ne 0 ]; then
  while IFS= read -r line; do
    if [[ $line =~ gpu-ci\ step\ ([a-z0-9-]+):\ (.*)$ ]]; then
      annotate error "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
    fi
  done <"$GPU_CI_WORK/destroy.log"
  die "pulumi destroy failed (exit $rc); its output is above" "$rc"
fi
rm -f "$GPU_CI_WORK/kubeconfig"
log "cluster $GPU_CI_KIND_CLUSTER destroyed"
