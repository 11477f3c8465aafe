#!/usr/bin/env bash
# Step up: `pulumi up` of the stack configure.py wrote, on a file backend in this job's
# folder (no account: `pulumi login file://...`; the secrets passphrase is generated here,
# kept in a 0600 file and masked), then the outputs: KUBECONFIG and the cluster's facts.
#
# With load-images, two updates: the host and the cluster first (the stack without its
# platform), then `kind load docker-image` of each image, then the whole stack, so that the
# platform's releases find those images in the nodes. The second update changes nothing
# the first made (tests/action: the offline plans' diff is creates only).
#
# A failed update names the host step that failed: each `gpu-ci step <name>: <cause>` line
# in the update's log becomes an annotation, then this step fails naming itself. While the
# update runs, workflow commands are off (lib.sh's stop_commands): its output is text.
GPU_CI_STEP=up
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_folder
load_env
load_env "$GPU_CI_WORK/plan.env"
pulumi_env
here="$(dirname "${BASH_SOURCE[0]}")"
python="$GPU_CI_VENV/bin/python"
stack="$GPU_CI_STACK"
pulumi=("$GPU_CI_PULUMI" --non-interactive --cwd "$GPU_CI_PROJECT")

if [ ! -s "$PULUMI_CONFIG_PASSPHRASE_FILE" ]; then
  (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$PULUMI_CONFIG_PASSPHRASE_FILE")
fi
printf '::add-mask::%s\n' "$(cat "$PULUMI_CONFIG_PASSPHRASE_FILE")"
mkdir -p "$GPU_CI_WORK/state"
"${pulumi[@]}" login "file://$GPU_CI_WORK/state" >&2 || die "pulumi login file://$GPU_CI_WORK/state failed"
"${pulumi[@]}" stack select --create --secrets-provider passphrase "$stack" >&2 ||
  die "pulumi stack select --create $stack failed"

# update PHASE: one `pulumi up`, its log kept; a failure annotates each failed host step.
update() {
  local log="$GPU_CI_WORK/up-$1.log" rc=0 line name cause seen=" "
  log "pulumi up ($1)"
  stop_commands  # pulumi's output repeats values of the stack: text, never workflow commands
  "${pulumi[@]}" up --stack "$stack" --yes --skip-preview --suppress-progress \
    --message "gpu-cluster action: $1" 2>&1 | tee "$log" || rc=$?
  resume_commands
  [ "$rc" -eq 0 ] && return 0
  while IFS= read -r line; do
    if [[ $line =~ gpu-ci\ step\ ([a-z0-9-]+):\ (.*)$ ]]; then
      name="${BASH_REMATCH[1]}"
      cause="${BASH_REMATCH[2]}"
      if [[ $seen != *" $name "* ]]; then
        annotate error "$name" "$cause"
        seen+="$name "
      fi
    fi
  done <"$log"
  if [ "$seen" = " " ]; then
    die "pulumi up ($1) failed (exit $rc); its output is above" "$rc"
  fi
  die "pulumi up ($1) failed (exit $rc) in host step(s)${seen% }; their causes are above" "$rc"
}

if [ -n "$GPU_CI_IMAGES" ]; then
  "$python" "$here/configure.py" phase cluster
  update cluster
  kind_cmd=("$GPU_CI_ROOT$GPU_CI_TOOLS_BINDIR/kind")
  docker_cmd=(docker)
  if [ "$GPU_CI_USE_SUDO" = true ]; then
    kind_cmd=(as_root "${kind_cmd[@]}")
    docker_cmd=(as_root docker)
  fi
  for image in $GPU_CI_IMAGES; do
    "${docker_cmd[@]}" image inspect "$image" >/dev/null 2>&1 ||
      die "load-images: $image is not in this runner's Docker; build or pull it before this step"
    log "kind load docker-image $image (cluster $GPU_CI_KIND_CLUSTER)"
    "${kind_cmd[@]}" load docker-image --name "$GPU_CI_KIND_CLUSTER" "$image" >&2 ||
      die "kind load docker-image $image --name $GPU_CI_KIND_CLUSTER failed"
  done
  "$python" "$here/configure.py" phase full
fi
update full

# The outputs: the kubeconfig goes to a 0600 file and never to the log; the rest to
# step outputs, the job summary and KUBECONFIG for the job's later steps.
"${pulumi[@]}" stack output --stack "$stack" --json --show-secrets |
  "$python" "$here/outputs.py" || die "reading the stack's outputs failed"

# The NCCL check's bandwidth (expect-gpus of 2+: docs/multi-gpu.md), from its Job's log.
if grep -q '"nccl-all-reduce"' "$GPU_CI_WORK/outputs.json"; then
  KUBECONFIG="$GPU_CI_WORK/kubeconfig" "$GPU_CI_ROOT$GPU_CI_TOOLS_BINDIR/kubectl" \
    -n gpu-ci-checks logs -l gpu-ci/check=nccl-all-reduce --tail=-1 |
    "$python" "$here/outputs.py" bandwidth || die "reading the NCCL check's bandwidth failed"
fi

bash "$here/tools-cache.sh" collect
