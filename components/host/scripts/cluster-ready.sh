# shellcheck shell=bash
# Step cluster-ready: wait, bounded, until every node of the cluster is Ready and at least
# EXPECTED_GPUS nvidia.com/gpu are allocatable in total. Runs after the platform layer
# installed the GPU operator or the device plugin (nvkind installs neither).
# Parameters: KUBECONFIG_PATH (nvkind-cluster's, on this host), EXPECTED_GPUS,
# TIMEOUT_SECONDS, POLL_SECONDS, USE_SUDO, ROOT.
#
# At most TIMEOUT_SECONDS / POLL_SECONDS + 1 polls, and none after TIMEOUT_SECONDS. On
# timeout the step fails naming what is missing: an unreachable API server, nodes that
# are not Ready, no node labelled nvidia.com/gpu.present=true, whether any
# nvidia-device-plugin pod exists (and its phase), and the allocatable GPUs per node.
#
# Result contract: the last stdout line is
#   {"step":"cluster-ready","changed":false,"nodes":2,"gpuAllocatable":1,"polls":3}

readonly kubeconfig="$ROOT$KUBECONFIG_PATH"
# name|Ready status|gpu.present label|allocatable nvidia.com/gpu, one node a line.
readonly nodes_query='{range .items[*]}{.metadata.name}{"|"}{.status.conditions[?(@.type=="Ready")].status}{"|"}{.metadata.labels.nvidia\.com/gpu\.present}{"|"}{.status.allocatable.nvidia\.com/gpu}{"\n"}{end}'
readonly pods_query='{range .items[*]}{.metadata.namespace}/{.metadata.name}{"|"}{.status.phase}{"\n"}{end}'

kube() {
  if [ "$USE_SUDO" = true ]; then
    as_root kubectl --kubeconfig "$kubeconfig" --request-timeout=20s "$@"
  else
    kubectl --kubeconfig "$kubeconfig" --request-timeout=20s "$@"
  fi
}

# join SEPARATOR ITEM...
join() {
  local separator="$1" out=""
  shift
  for item in "$@"; do
    out+="${out:+$separator}$item"
  done
  printf '%s' "$out"
}

# poll_once: refresh the node facts below; succeeds when the cluster is ready.
api_error=""
node_count=0
labelled=0
allocatable=0
not_ready=()
per_node=()
poll_once() {
  local out name ready present gpus
  api_error=""
  if ! out="$(kube get nodes -o "jsonpath=$nodes_query" 2>"$GPU_CI_WORKDIR/kubectl.err")"; then
    api_error="$(tail -n 1 "$GPU_CI_WORKDIR/kubectl.err")"
    return 1
  fi
  node_count=0
  labelled=0
  allocatable=0
  not_ready=()
  per_node=()
  while IFS='|' read -r name ready present gpus; do
    [ -n "$name" ] || continue
    node_count=$((node_count + 1))
    [ "$ready" = True ] || not_ready+=("$name (Ready=${ready:-Unknown})")
    [ "$present" != true ] || labelled=$((labelled + 1))
    [[ $gpus =~ ^[0-9]+$ ]] || gpus=0
    allocatable=$((allocatable + gpus))
    per_node+=("$name=$gpus")
  done <<<"$out"
  [ "$node_count" -gt 0 ] && [ "${#not_ready[@]}" -eq 0 ] && [ "$allocatable" -ge "$EXPECTED_GPUS" ]
}

[ -e "$kubeconfig" ] ||
  die "kubeconfig $KUBECONFIG_PATH not found: run the nvkind-cluster step first"

max_polls=$((TIMEOUT_SECONDS / POLL_SECONDS + 1))
polls=0
while :; do
  polls=$((polls + 1))
  if poll_once; then
    log "cluster ready: $node_count node(s) Ready, $allocatable nvidia.com/gpu allocatable"
    result false "\"nodes\":$node_count,\"gpuAllocatable\":$allocatable,\"polls\":$polls"
    exit 0
  fi
  if [ "$polls" -ge "$max_polls" ] || [ "$SECONDS" -ge "$TIMEOUT_SECONDS" ]; then
    break
  fi
  sleep "$POLL_SECONDS"
done

missing=()
if [ -n "$api_error" ]; then
  missing+=("API server unreachable: $api_error")
elif [ "$node_count" -eq 0 ]; then
  missing+=("no node registered")
else
  if [ "${#not_ready[@]}" -gt 0 ]; then
    missing+=("node(s) not Ready: $(join ', ' "${not_ready[@]}")")
  fi
  if [ "$allocatable" -lt "$EXPECTED_GPUS" ]; then
    missing+=("nvidia.com/gpu allocatable $allocatable of $EXPECTED_GPUS expected ($(join ', ' "${per_node[@]}"))")
    [ "$labelled" -gt 0 ] || missing+=("no node is labelled nvidia.com/gpu.present=true")
    plugins=()
    if pods="$(kube get pods -A -o "jsonpath=$pods_query" 2>/dev/null)"; then
      while IFS='|' read -r pod phase; do
        if [[ $pod == *nvidia-device-plugin* ]]; then
          plugins+=("$pod (${phase:-Unknown})")
        fi
      done <<<"$pods"
      if [ "${#plugins[@]}" -eq 0 ]; then
        missing+=("no nvidia-device-plugin pod in any namespace (install the GPU operator or the device plugin)")
      else
        missing+=("device plugin pods: $(join ', ' "${plugins[@]}")")
      fi
    else
      missing+=("pods could not be listed")
    fi
  fi
fi
die "cluster not ready after $polls poll(s) within ${TIMEOUT_SECONDS}s: $(join '; ' "${missing[@]}")"
