# shellcheck shell=bash
# Step nvkind-cluster-delete: undo nvkind-cluster on destroy. Deletes the kind cluster
# (`kind delete cluster`, which also removes its nodes' containers), then its state under
# STATEDIR and its kubeconfig. A cluster that no longer exists is fine.
# Parameters: CLUSTER_NAME, STATEDIR, KUBECONFIG_PATH, USE_SUDO, ROOT.
#
# Result contract: the last stdout line is
#   {"step":"nvkind-cluster-delete","changed":true,"cluster":"gpu-ci","deleted":true}
# (`deleted`: a cluster existed and was deleted; `changed` also counts removed state).

readonly clusterdir="$ROOT$STATEDIR/$CLUSTER_NAME"
readonly kubeconfig="$ROOT$KUBECONFIG_PATH"

clusters="$(as_root_if "$USE_SUDO" kind get clusters 2>"$GPU_CI_WORKDIR/kind.err")" || {
  err="$(tail -n 3 "$GPU_CI_WORKDIR/kind.err")"
  die "kind get clusters failed (is Docker running?): ${err//$'\n'/; }"
}

changed=false
deleted=false
if grep -qxF "$CLUSTER_NAME" <<<"$clusters"; then
  log "deleting cluster $CLUSTER_NAME"
  rc=0
  as_root_if "$USE_SUDO" kind delete cluster --name "$CLUSTER_NAME" --kubeconfig "$kubeconfig" >&2 || rc=$?
  [ "$rc" -eq 0 ] || die "kind delete cluster --name $CLUSTER_NAME failed (exit $rc)"
  changed=true
  deleted=true
else
  log "cluster $CLUSTER_NAME does not exist; nothing to delete"
fi

for path in "$kubeconfig" "$clusterdir"; do
  if [ -e "$path" ]; then
    as_root rm -rf "$path"
    changed=true
  fi
done

result "$changed" "\"cluster\":\"$CLUSTER_NAME\",\"deleted\":$deleted"
