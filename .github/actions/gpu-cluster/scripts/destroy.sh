#!/usr/bin/env bash
# Step destroy (`command: destroy`, the job's last step, `if: always()`): delete the cluster
# the `up` of this job made, from the state it kept in this job's folder.
#
# Everything the platform put in the cluster goes with the cluster, so it is dropped from
# the state first (`pulumi state delete` of the cluster's Kubernetes provider and all that
# depends on it), rather than uninstalled release by release; `pulumi destroy` then runs
# the cluster's own delete step (`kind delete cluster`, its state and kubeconfig). Host
# packages stay, as for every `local` stack. Nothing to destroy (no `up` ran, or it failed
# before creating the stack) is not an error.
GPU_CI_STEP=destroy
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ ! -f "$GPU_CI_WORK/env" ] || [ ! -f "$GPU_CI_WORK/plan.env" ] || [ ! -d "$GPU_CI_WORK/state" ]; then
  log "no cluster was set up by this job under $GPU_CI_WORK; nothing to destroy"
  exit 0
fi
load_env
load_env "$GPU_CI_WORK/plan.env"
[ -x "$GPU_CI_PULUMI" ] || die "the Pulumi CLI of this job's up ($GPU_CI_PULUMI) is gone"
pulumi_env
stack="$GPU_CI_STACK"
pulumi=("$GPU_CI_PULUMI" --non-interactive --cwd "$GPU_CI_PROJECT")

"${pulumi[@]}" login "file://$GPU_CI_WORK/state" >&2 || die "pulumi login file://$GPU_CI_WORK/state failed"
if ! "${pulumi[@]}" stack select "$stack" >&2; then
  log "stack $stack was never created; nothing to destroy"
  exit 0
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
"${pulumi[@]}" destroy --stack "$stack" --yes --skip-preview --suppress-progress \
  --message "gpu-cluster action: destroy" 2>&1 | tee "$GPU_CI_WORK/destroy.log" || rc=$?
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
