# shellcheck shell=bash
# Step cluster-kubeconfig: return the admin kubeconfig of cluster CLUSTER_NAME, read from
# the host (KUBECONFIG_PATH, root-owned 0600, written by the nvkind-cluster step), with
# its one cluster server set to https://$API_SERVER_ADDRESS:API_SERVER_PORT. It changes
# nothing on the host: its parameters only name the cluster, so it re-runs only when the
# cluster does, and the Kubernetes provider built on its output keeps a known kubeconfig
# while nvkind-cluster re-runs in place.
# Parameters: CLUSTER_NAME, STATEDIR, KUBECONFIG_PATH, USE_SUDO, API_SERVER_PORT, ROOT.
# Environment: API_SERVER_ADDRESS (required), as for nvkind-cluster: the VM's public IP,
# or 127.0.0.1 on the local machine.
#
# Result contract: stdout is this one line and nothing else (the kubeconfig is a secret:
# the caller marks stdout secret; it never reaches stderr or any command line):
#   {"step":"cluster-kubeconfig","changed":false,"cluster":"gpu-ci",
#    "server":"https://203.0.113.7:6443","kubeconfig":"<base64 of the kubeconfig>"}

readonly kubeconfig="$ROOT$KUBECONFIG_PATH"
# STATEDIR is read only through KUBECONFIG_PATH (its default lives under it); it stays a
# parameter because it is part of the cluster's identity, so a new one re-runs the step.
: "$STATEDIR"

address="$(api_server_address)" || exit 1
server="https://$address:$API_SERVER_PORT"

as_root_if "$USE_SUDO" test -s "$kubeconfig" ||
  die "no kubeconfig at $KUBECONFIG_PATH: the nvkind-cluster step has not run on this host \
(cluster $CLUSTER_NAME)"
current="$(as_root_if "$USE_SUDO" cat "$kubeconfig")" ||
  die "cannot read the kubeconfig $KUBECONFIG_PATH"
remote_config="$(set_server "$current" "$server")" ||
  die "the kubeconfig $KUBECONFIG_PATH does not have exactly one cluster server"
kubeconfig_b64="$(printf '%s\n' "$remote_config" | base64 -w0)"

result false "\"cluster\":\"$CLUSTER_NAME\",\"server\":\"$(
  json_escape "$server"
)\",\"kubeconfig\":\"$kubeconfig_b64\""
