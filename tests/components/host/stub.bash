#!/bin/bash
# One stub for every system command the host steps call; tests symlink it under each
# command's name. It records argv to $SANDBOX/calls.log and acts on state files under
# $SANDBOX/state, which tests write to install packages, hold locks or inject faults.
set -euo pipefail

name="$(basename "$0")"
state="$SANDBOX/state"
printf '%s\n' "$name${*:+ $*}" >>"$SANDBOX/calls.log"

# take COUNTER: consume one unit of a countdown fault file; succeed while any remain.
take() {
  local file="$state/$1" n
  [ -f "$file" ] || return 1
  n="$(cat "$file")"
  [ "$n" -gt 0 ] || return 1
  echo $((n - 1)) >"$file"
}

case "$name" in
  sudo)
    [ "${1:-}" != -n ] || shift
    exec "$@"
    ;;
  sleep)
    ;;
  apt-get)
    if take apt-lock; then
      echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
      exit 100
    fi
    if take apt-network; then
      echo "E: Failed to fetch https://example.invalid/dists/noble/InRelease  Temporary failure resolving 'example.invalid'" >&2
      exit 100
    fi
    verb=""
    for arg in "$@"; do
      case "$arg" in
        -* | *::*) continue ;;
      esac
      if [ -z "$verb" ]; then
        verb="$arg"
        continue
      fi
      if [ "$verb" = install ]; then
        if [ -f "$state/apt-missing-$arg" ]; then
          echo "E: Unable to locate package $arg" >&2
          exit 100
        fi
        pkg="${arg%%=*}"
        version="1.0-1"
        if [ "$arg" != "$pkg" ]; then version="${arg#*=}"; fi
        mkdir -p "$state/dpkg"
        printf '%s' "$version" >"$state/dpkg/$pkg"
      fi
    done
    ;;
  dpkg-query)
    pkg="${!#}"
    if [ -f "$state/dpkg/$pkg" ]; then
      printf 'install ok installed\t%s' "$(cat "$state/dpkg/$pkg")"
    else
      echo "dpkg-query: no packages found matching $pkg" >&2
      exit 1
    fi
    ;;
  dpkg)
    [ "$1" = --print-architecture ] && echo amd64
    ;;
  apt-mark)
    verb="$1"
    shift
    mkdir -p "$state/held"
    case "$verb" in
      showhold) ls "$state/held" ;;
      hold) for p in "$@"; do touch "$state/held/$p"; done ;;
      unhold) for p in "$@"; do rm -f "$state/held/$p"; done ;;
    esac
    ;;
  nvidia-smi)
    if [ ! -f "$state/driver-version" ]; then
      echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
      exit 9
    fi
    if [ ! -s "$state/gpus" ]; then
      echo "No devices were found"
      exit 6
    fi
    if [ "$1" = -L ]; then
      i=0
      while IFS='|' read -r gpu uuid; do
        echo "GPU $i: $gpu (UUID: $uuid)"
        i=$((i + 1))
      done <"$state/gpus"
    else
      while read -r _; do cat "$state/driver-version"; echo; done <"$state/gpus"
    fi
    ;;
  docker)
    if [ -f "$state/docker-run-fail" ]; then
      cat "$state/docker-run-fail" >&2
      exit 125
    fi
    gpus="$state/gpus"
    [ -f "$state/container-gpus" ] && gpus="$state/container-gpus"
    if [ ! -s "$gpus" ]; then
      echo "No devices were found"
      exit 6
    fi
    i=0
    while IFS='|' read -r gpu uuid; do
      echo "GPU $i: $gpu (UUID: $uuid)"
      i=$((i + 1))
    done <"$gpus"
    ;;
  nvidia-ctk)
    config=""
    cdi=false
    for arg in "$@"; do
      case "$arg" in
        --config=*) config="${arg#--config=}" ;;
        --cdi.enabled) cdi=true ;;
      esac
    done
    mkdir -p "$(dirname "$config")"
    if [ "$1" = config ]; then
      line="accept-nvidia-visible-devices-as-volume-mounts = true"
      grep -qxF "$line" "$config" 2>/dev/null || echo "$line" >>"$config"
    else
      printf '{"default-runtime": "nvidia", "features": {"cdi": %s}}\n' "$cdi" >"$config"
    fi
    ;;
  systemctl)
    verb="$1"
    unit="${!#}"
    case "$verb" in
      is-enabled) [ -f "$state/enabled-$unit" ] ;;
      is-active) [ -f "$state/active-$unit" ] ;;
      enable) touch "$state/enabled-$unit" "$state/active-$unit" ;;
      disable) rm -f "$state/enabled-$unit" "$state/active-$unit" ;;
      stop) rm -f "$state/active-$unit" ;;
      restart)
        if [ -f "$state/restart-fail-$unit" ]; then
          echo "Job for $unit.service failed because the control process exited with error code." >&2
          exit 1
        fi
        ;;
    esac
    ;;
  systemd-run | reboot) ;;
  getent)
    [ -f "$state/group-docker" ] || exit 2
    printf 'docker:x:999:%s\n' "$(cat "$state/group-docker")"
    ;;
  usermod)
    user="${!#}"
    members="$(cat "$state/group-docker")"
    printf '%s' "${members:+$members,}$user" >"$state/group-docker"
    ;;
  gpasswd)
    # `gpasswd -d USER docker`: USER leaves group docker.
    [ "$1" = -d ] && [ "$3" = docker ] || exit 2
    members=",$(cat "$state/group-docker"),"
    members="${members/,$2,/,}"
    members="${members#,}"
    printf '%s' "${members%,}" >"$state/group-docker"
    ;;
  sysctl)
    if [ "$1" = -n ]; then
      cat "$state/sysctl-$2"
    else
      kv="${!#}"
      printf '%s' "${kv#*=}" >"$state/sysctl-${kv%%=*}"
    fi
    ;;
  gpg)
    out="${*: -2:1}"
    { printf 'dearmored:'; cat "${!#}"; } >"$out"
    ;;
  curl)
    # Downloads (`curl -fsSL ... -o DEST URL`) are served from state/urls/<key>; API calls
    # (`-X METHOD ... -w '%{http_code}'`) from state/api/<METHOD>_<key> (+ .status), and
    # recorded with their bearer token in state/api-requests.log, bodies in .request.
    dest=""
    prev=""
    method=GET
    api=false
    body=""
    auth=""
    for arg in "$@"; do
      case "$prev" in
        -o) dest="$arg" ;;
        -X) method="$arg" ;;
        -w) api=true ;;
        --data-binary) body="${arg#@}" ;;
        -H)
          if [ "${arg#@}" != "$arg" ]; then
            while IFS= read -r header; do
              case "$header" in
                "Authorization: Bearer "*) auth="${header#Authorization: Bearer }" ;;
              esac
            done <"${arg#@}"
          fi
          ;;
      esac
      prev="$arg"
    done
    url="${!#}"
    if take curl-network; then
      echo "curl: (6) Could not resolve host" >&2
      exit 6
    fi
    key="$(printf '%s' "$url" | tr -c 'A-Za-z0-9.-' '_')"
    if [ "$api" = true ]; then
      key="${method}_$key"
      mkdir -p "$state/api"
      printf '%s %s %s\n' "$method" "$url" "$auth" >>"$state/api-requests.log"
      if [ -n "$body" ]; then
        cp "$body" "$state/api/$key.request"
      fi
      if take "api/$key.transient"; then
        code=503
        printf '{"message":"Service Unavailable"}' >"$dest"
      elif [ -f "$state/api/$key" ]; then
        code="$(cat "$state/api/$key.status")"
        cp "$state/api/$key" "$dest"
      else
        code=404
        printf '{"message":"Not Found"}' >"$dest"
      fi
      printf '%s' "$code"
      exit 0
    fi
    if [ ! -f "$state/urls/$key" ]; then
      echo "curl: (22) The requested URL returned error: 404" >&2
      exit 22
    fi
    cp "$state/urls/$key" "$dest"
    ;;
  chown) ;;
  id)
    user="${!#}"
    if [ ! -f "$state/user-$user" ]; then
      echo "id: '$user': no such user" >&2
      exit 1
    fi
    echo 1001
    ;;
  useradd)
    touch "$state/user-${!#}"
    ;;
  visudo)
    [ ! -f "$state/visudo-fail" ]
    ;;
  openssl)
    # `openssl dgst -sha256 -sign KEY -binary`: a stand-in signature over stdin that
    # names the key's digest, so tests can check what was signed with which key.
    key=""
    prev=""
    for arg in "$@"; do
      [ "$prev" = -sign ] && key="$arg"
      prev="$arg"
    done
    if [ ! -r "$key" ] || [ -f "$state/openssl-fail" ]; then
      echo "Could not read private key from $key" >&2
      exit 1
    fi
    signed="$(sha256sum)"
    keysum="$(sha256sum <"$key")"
    printf 'signed:%s:with:%s' "${signed%% *}" "${keysum%% *}"
    ;;
  cloud-init)
    # `cloud-init status --wait --long`: state/cloud-init-status holds "<exit code> <status>".
    code=0
    status=done
    if [ -f "$state/cloud-init-status" ]; then
      read -r code status <"$state/cloud-init-status" || true
    fi
    printf 'status: %s\nextended_status: %s\nboot_status_code: enabled-by-generator\n' \
      "$status" "$status"
    [ "$code" -eq 0 ] || echo "Error: cloud-init module failed: scripts_user" >&2
    exit "$code"
    ;;
  kind | nvkind)
    # Clusters are state/kind-clusters/<name> (the node image and config they were created
    # with). Faults: state/nvkind-create-fail, state/print-gpus-fail, state/kind-delete-fail,
    # state/kind-fail (their content goes to stderr). print-gpus lists state/gpus as one node's GPUs,
    # or prints state/print-gpus when it exists.
    cluster=""
    template=""
    image=""
    kubeconfig=""
    prev=""
    for arg in "$@"; do
      case "$prev" in
        --name) cluster="$arg" ;;
        --config-template) template="$arg" ;;
        --image) image="$arg" ;;
        --kubeconfig) kubeconfig="$arg" ;;
      esac
      prev="$arg"
    done
    write_kubeconfig() {
      mkdir -p "$(dirname "$kubeconfig")"
      printf '%s\n' "apiVersion: v1" "kind: Config" "clusters:" "- cluster:" \
        "    certificate-authority-data: Q0EtREFUQQ==" "    server: https://0.0.0.0:6443" \
        "  name: kind-$cluster" "contexts:" "- context:" "    cluster: kind-$cluster" \
        "    user: kind-$cluster" "  name: kind-$cluster" "current-context: kind-$cluster" \
        "users:" "- name: kind-$cluster" "  user:" "    client-key-data: S3CRET-KEY-DATA" \
        >"$kubeconfig"
      chmod 600 "$kubeconfig"
    }
    if [ -f "$state/kind-fail" ]; then
      cat "$state/kind-fail" >&2
      exit 1
    fi
    case "$name ${1:-} ${2:-}" in
      "kind get clusters")
        if [ -z "$(ls -A "$state/kind-clusters" 2>/dev/null)" ]; then
          echo "No kind clusters found." >&2
        else
          ls "$state/kind-clusters"
        fi
        ;;
      "kind delete cluster")
        if [ -f "$state/kind-delete-fail" ]; then
          cat "$state/kind-delete-fail" >&2
          exit 1
        fi
        echo "Deleting cluster \"$cluster\" ..." >&2
        rm -f "$state/kind-clusters/$cluster"
        ;;
      "kind export kubeconfig")
        [ -f "$state/kind-clusters/$cluster" ] || {
          echo "ERROR: could not locate any control plane nodes for cluster named '$cluster'" >&2
          exit 1
        }
        write_kubeconfig
        ;;
      "nvkind cluster create")
        # Like nvkind: kind creates the cluster, then the GPU setup may fail.
        echo "Creating cluster \"$cluster\" ..."
        mkdir -p "$state/kind-clusters"
        { echo "# image: $image"; cat "$template"; } >"$state/kind-clusters/$cluster"
        write_kubeconfig
        if [ -f "$state/nvkind-create-fail" ]; then
          cat "$state/nvkind-create-fail" >&2
          exit 1
        fi
        echo "Set kubectl context to \"kind-$cluster\""
        ;;
      "nvkind cluster print-gpus")
        [ -f "$state/kind-clusters/$cluster" ] || {
          echo "getting cluster nodes: no nodes found for cluster \"$cluster\"" >&2
          exit 1
        }
        if [ -f "$state/print-gpus-fail" ]; then
          cat "$state/print-gpus-fail" >&2
          exit 1
        fi
        if [ -f "$state/print-gpus" ]; then
          cat "$state/print-gpus"
          exit 0
        fi
        printf '[\n    {\n        "node": "%s-worker",\n        "gpus": [' "$cluster"
        i=0
        while IFS='|' read -r gpu uuid; do
          [ "$i" -eq 0 ] || printf ','
          printf '\n            {"Index": "%s", "Name": "%s", "UUID": "%s"}' "$i" "$gpu" "$uuid"
          i=$((i + 1))
        done <"$state/gpus"
        printf '\n        ]\n    }\n]\n'
        ;;
      *)
        echo "stub: no behaviour for $name $*" >&2
        exit 127
        ;;
    esac
    ;;
  kubectl)
    # `kubectl ... get nodes|pods -o jsonpath=...`: the already-formatted lines of
    # state/kubectl/nodes.<n> on the n-th `get nodes` (state/kubectl/nodes when there is
    # no such file) and of state/kubectl/pods. Fault: state/kubectl-fail (stderr, exit 1).
    if [ -f "$state/kubectl-fail" ]; then
      cat "$state/kubectl-fail" >&2
      exit 1
    fi
    what=""
    prev=""
    for arg in "$@"; do
      [ "$prev" = get ] && what="$arg"
      prev="$arg"
    done
    mkdir -p "$state/kubectl"
    case "$what" in
      nodes)
        n=$(($(cat "$state/kubectl/nodes.count" 2>/dev/null || echo 0) + 1))
        echo "$n" >"$state/kubectl/nodes.count"
        if [ -f "$state/kubectl/nodes.$n" ]; then
          cat "$state/kubectl/nodes.$n"
        else
          cat "$state/kubectl/nodes" 2>/dev/null || true
        fi
        ;;
      pods) cat "$state/kubectl/pods" 2>/dev/null || true ;;
      *)
        echo "stub: no behaviour for kubectl $*" >&2
        exit 127
        ;;
    esac
    ;;
  *)
    echo "stub: no behaviour for $name" >&2
    exit 127
    ;;
esac
