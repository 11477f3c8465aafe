# shellcheck shell=bash
# Step nvkind-cluster: create, adopt or replace the nvkind GPU cluster that KIND_CONFIG
# (rendered by components/cluster/kind_config.py) describes, then count its GPUs.
# Parameters: CLUSTER_NAME, KIND_CONFIG, NODE_IMAGE, API_SERVER_PORT, EXPECTED_GPUS
# (0 = at least one), STATEDIR, KUBECONFIG_PATH, USE_SUDO, ROOT.
# Environment: API_SERVER_ADDRESS (required), the address clients reach the API server
# at: the VM's public IP, or 127.0.0.1 on the local machine. It replaces the placeholder
# SAN in the config and is the server of the kubeconfig this step returns.
#
# Idempotence: STATEDIR/NAME/config.sha256 records the config (address included) and
# node image of the cluster this step last completed. An existing cluster with the same
# record is adopted; one this step created with another config is deleted and created
# again; one gpu-ci did not create is refused. The kubeconfig kept on the host (0600,
# KUBECONFIG_PATH) points at https://127.0.0.1:PORT.
#
# Result contract (the kubeconfig is a secret: the caller marks stdout secret; it never
# reaches stderr or any command line):
#   {"step":"nvkind-cluster","changed":true,"action":"created|replaced|adopted",
#    "cluster":"gpu-ci","nodeImage":"kindest/node:v1.35.0@sha256:...","gpuCount":1,
#    "server":"https://203.0.113.7:6443","kubeconfig":"<base64 of the kubeconfig>"}

readonly placeholder=__GPU_CI_API_SERVER_ADDRESS__
readonly clusterdir="$ROOT$STATEDIR/$CLUSTER_NAME"
readonly config_file="$clusterdir/kind-config.yaml"
readonly record="$clusterdir/config.sha256"
readonly owned="$clusterdir/created-by-gpu-ci"
readonly kubeconfig="$ROOT$KUBECONFIG_PATH"

# tail_of FILE: its last three lines, on one line.
tail_of() {
  local text
  text="$(tail -n 3 "$1")"
  printf '%s' "${text//$'\n'/; }"
}

cluster_exists() {
  local clusters
  clusters="$(as_root_if "$USE_SUDO" kind get clusters 2>"$GPU_CI_WORKDIR/kind.err")" ||
    die "kind get clusters failed (is Docker running?): $(tail_of "$GPU_CI_WORKDIR/kind.err")"
  grep -qxF "$CLUSTER_NAME" <<<"$clusters"
}

address="$(api_server_address)" || exit 1
server="https://$address:$API_SERVER_PORT"

# The config with the host's address as a certificate SAN (already there when local).
config=""
while IFS= read -r line; do
  if [[ $line == *"$placeholder"* ]]; then
    case "$address" in
      localhost | 127.0.0.1) continue ;;
    esac
    line="${line//"$placeholder"/$address}"
  fi
  config+="$line"$'\n'
done <<<"${KIND_CONFIG%$'\n'}"
printf '%s' "$config" >"$GPU_CI_WORKDIR/kind-config.yaml"
printf 'node-image: %s\n%s' "$NODE_IMAGE" "$config" >"$GPU_CI_WORKDIR/identity"
desired="$(sha256_of "$GPU_CI_WORKDIR/identity")"

recorded=""
if [ -f "$record" ]; then
  recorded="$(cat "$record")"
fi

action=created
if cluster_exists; then
  if [ "$recorded" = "$desired" ]; then
    action=adopted
  elif [ -f "$owned" ]; then
    action=replaced
  else
    die "a kind cluster named $CLUSTER_NAME exists but gpu-ci did not create it; delete it \
(kind delete cluster --name $CLUSTER_NAME) or choose another cluster name"
  fi
fi

changed=true
case "$action" in
  adopted)
    log "cluster $CLUSTER_NAME exists with the same config; adopting it"
    changed=false
    if [ ! -s "$kubeconfig" ]; then
      log "exporting the kubeconfig of cluster $CLUSTER_NAME to $KUBECONFIG_PATH"
      as_root_if "$USE_SUDO" kind export kubeconfig --name "$CLUSTER_NAME" --kubeconfig "$kubeconfig" >&2 ||
        die "kind export kubeconfig --name $CLUSTER_NAME failed"
      changed=true
    fi
    ;;
  *)
    if [ "$action" = replaced ]; then
      log "cluster $CLUSTER_NAME exists with another config; deleting it to create it again"
      rc=0
      as_root_if "$USE_SUDO" kind delete cluster --name "$CLUSTER_NAME" --kubeconfig "$kubeconfig" >&2 ||
        rc=$?
      [ "$rc" -eq 0 ] || die "kind delete cluster --name $CLUSTER_NAME failed (exit $rc)"
    fi
    as_root rm -f "$record" "$kubeconfig"
    as_root install -D -m 0644 "$GPU_CI_WORKDIR/kind-config.yaml" "$config_file"
    as_root touch "$owned"
    as_root mkdir -p "${kubeconfig%/*}"
    log "creating cluster $CLUSTER_NAME ($NODE_IMAGE)"
    rc=0
    as_root_if "$USE_SUDO" nvkind cluster create --name "$CLUSTER_NAME" --config-template "$config_file" \
      --image "$NODE_IMAGE" --kubeconfig "$kubeconfig" >&2 || rc=$?
    [ "$rc" -eq 0 ] ||
      die "nvkind cluster create --name $CLUSTER_NAME failed (exit $rc); its output is above"
    ;;
esac

gpus_out="$(as_root_if "$USE_SUDO" nvkind cluster print-gpus --name "$CLUSTER_NAME" \
  2>"$GPU_CI_WORKDIR/print-gpus.err")" ||
  die "nvkind cluster print-gpus --name $CLUSTER_NAME failed: \
$(tail_of "$GPU_CI_WORKDIR/print-gpus.err")"
gpu_count="$({ grep -o '"UUID"' <<<"$gpus_out" || true; } | wc -l)"
gpu_count=$((gpu_count))
[ "$gpu_count" -gt 0 ] || die "no GPU is visible in the nodes of cluster $CLUSTER_NAME \
(nvkind cluster print-gpus listed none): check that the toolkit accepts device volume \
mounts and that nvidia is Docker's default runtime (toolkit-config step)"
if [ "$EXPECTED_GPUS" -gt 0 ] && [ "$gpu_count" -ne "$EXPECTED_GPUS" ]; then
  die "the nodes of cluster $CLUSTER_NAME see $gpu_count GPU(s), expected $EXPECTED_GPUS"
fi
log "cluster $CLUSTER_NAME: $gpu_count GPU(s) in its nodes"

# The kubeconfig: kept on the host pointing at 127.0.0.1, returned pointing at $server.
current="$(as_root_if "$USE_SUDO" cat "$kubeconfig")" || die "cannot read the kubeconfig $KUBECONFIG_PATH"
local_config="$(set_server "$current" "https://127.0.0.1:$API_SERVER_PORT")" ||
  die "the kubeconfig $KUBECONFIG_PATH does not have exactly one cluster server"
if [ "$local_config" != "$current" ]; then
  printf '%s\n' "$local_config" >"$GPU_CI_WORKDIR/kubeconfig"
  as_root install -m 0600 "$GPU_CI_WORKDIR/kubeconfig" "$kubeconfig"
fi
remote_config="$(set_server "$current" "$server")" ||
  die "the kubeconfig $KUBECONFIG_PATH does not have exactly one cluster server"
kubeconfig_b64="$(printf '%s\n' "$remote_config" | base64 -w0)"

if [ "$recorded" != "$desired" ]; then
  printf '%s\n' "$desired" >"$GPU_CI_WORKDIR/record"
  as_root install -m 0644 "$GPU_CI_WORKDIR/record" "$record"
fi

result "$changed" "\"action\":\"$action\",\"cluster\":\"$CLUSTER_NAME\",\"nodeImage\":\"$(
  json_escape "$NODE_IMAGE"
)\",\"gpuCount\":$gpu_count,\"server\":\"$(json_escape "$server")\",\"kubeconfig\":\"$kubeconfig_b64\""
