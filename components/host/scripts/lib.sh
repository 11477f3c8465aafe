# shellcheck shell=bash
# gpu-ci shared library, inlined by components/host/render.py after the step's
# `readonly` parameters. Expects GPU_CI_STEP, RETRY_ATTEMPTS, RETRY_BASE_SECONDS.
#
# Contract for every step:
#   * every failure ends non-zero with one stderr line `gpu-ci step <name>: <cause>`;
#   * the last stdout line is a JSON object `{"step": ..., "changed": ..., ...}`.

set -Eeuo pipefail
umask 022

# Unexpected failures (set -e) still name the step and the command that failed.
trap 'gpu_ci_on_error "$?" "$BASH_COMMAND"' ERR

gpu_ci_on_error() {
  printf 'gpu-ci step %s: command failed (exit %s): %s\n' "$GPU_CI_STEP" "$1" "$2" >&2
  exit "$1"
}

# die CAUSE [EXIT_CODE]: fail with the step named in the message.
die() {
  printf 'gpu-ci step %s: %s\n' "$GPU_CI_STEP" "$1" >&2
  exit "${2:-1}"
}

# @inline common.sh: log as_root

# as_root_if FLAG CMD...: run CMD as root when FLAG is true (kind and nvkind talk to a
# Docker daemon that only root may use), as the calling user otherwise.
as_root_if() {
  local flag="$1"
  shift
  if [ "$flag" = true ]; then
    as_root "$@"
  else
    "$@"
  fi
}

# @inline common.sh: backoff

# apt_get ARGS...: noninteractive apt-get, retried with exponential backoff while
# the apt/dpkg lock is held or a mirror is unreachable (apt exits 100 for both).
apt_get() {
  local attempt=1 rc errfile="$GPU_CI_WORKDIR/apt-get.stderr"
  while :; do
    rc=0
    as_root env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a apt-get -y -q \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
      "$@" 2>"$errfile" || rc=$?
    if [ "$rc" -eq 0 ]; then
      return 0
    fi
    cat "$errfile" >&2
    if [ "$rc" -ne 100 ] || ! grep -Eq \
      'Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock directory|Temporary failure resolving|Could not resolve|Failed to fetch|Connection timed out' \
      "$errfile"; then
      die "apt-get $1 failed (exit $rc)"
    fi
    if [ "$attempt" -ge "$RETRY_ATTEMPTS" ]; then
      die "apt-get $1 still blocked (apt/dpkg lock or network) after $attempt attempts"
    fi
    log "apt-get $1: lock held or network error, retry $attempt/$RETRY_ATTEMPTS"
    backoff "$attempt"
    attempt=$((attempt + 1))
  done
}

# @inline common.sh: fetch sha256_of

# verify_sha256 FILE EXPECTED LABEL: fail naming LABEL when the digest differs.
verify_sha256() {
  local actual
  actual="$(sha256_of "$1")"
  if [ "$actual" != "$2" ]; then
    die "checksum mismatch for $3: expected $2, got $actual"
  fi
}

# deb_installed_version PKG: the installed version, or nothing when not installed.
deb_installed_version() {
  local out
  out="$(dpkg-query -W -f='${Status}\t${Version}' "$1" 2>/dev/null)" || return 0
  case "$out" in
    "install ok installed"*) printf '%s' "${out#*$'\t'}" ;;
  esac
}

# install_file_if_changed SRC DEST MODE: install SRC at DEST atomically unless DEST
# already has the same bytes; returns 0 when DEST changed, 1 when it was current.
install_file_if_changed() {
  local src="$1" dest="$2" mode="$3"
  if [ -f "$dest" ] && cmp -s "$src" "$dest"; then
    return 1
  fi
  as_root install -D -m "$mode" "$src" "$dest.gpu-ci-new"
  as_root mv -f "$dest.gpu-ci-new" "$dest"
  return 0
}

# valid_address ADDRESS: an IPv4 address other than 0.0.0.0, or a DNS name (what
# $API_SERVER_ADDRESS may be: nvkind-cluster, cluster-kubeconfig).
valid_address() {
  local octet='(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])'
  local label='[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?'
  if [[ $1 =~ ^[0-9.]+$ ]]; then
    [[ $1 =~ ^$octet\.$octet\.$octet\.$octet$ ]] && [ "$1" != 0.0.0.0 ]
    return
  fi
  [ "${#1}" -le 253 ] && [[ $1 =~ ^$label(\.$label)*$ ]]
}

# api_server_address: the address clients reach the API server at, from
# $API_SERVER_ADDRESS (set on the step's command line), checked; dies without a valid one.
api_server_address() {
  local address="${API_SERVER_ADDRESS:-}"
  [ -n "$address" ] || die "API_SERVER_ADDRESS is not set: run the step as \
API_SERVER_ADDRESS=<address> bash <script>, with the host's public IP (127.0.0.1 locally)"
  valid_address "$address" ||
    die "API_SERVER_ADDRESS '$address' is not an IPv4 address or DNS name that clients can reach"
  printf '%s' "$address"
}

# set_server TEXT URL: the kubeconfig TEXT with its one cluster server set to URL; fails
# unless TEXT has exactly one `server:` line.
set_server() {
  local line out="" count=0
  while IFS= read -r line; do
    if [[ $line =~ ^([[:space:]]*)server:[[:space:]] ]]; then
      line="${BASH_REMATCH[1]}server: $2"
      count=$((count + 1))
    fi
    out+="$line"$'\n'
  done <<<"$1"
  [ "$count" -eq 1 ] || return 1
  printf '%s' "$out"
}

json_escape() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  s="${s//$'\n'/\\n}"
  s="${s//$'\r'/\\r}"
  s="${s//$'\t'/\\t}"
  printf '%s' "$s"
}

# result CHANGED [EXTRA_JSON_MEMBERS]: print the final machine-readable line.
result() {
  local extra=""
  if [ -n "${2:-}" ]; then
    extra=",$2"
  fi
  printf '{"step":"%s","changed":%s%s}\n' "$GPU_CI_STEP" "$1" "$extra"
}

GPU_CI_WORKDIR="$(mktemp -d)"
trap 'rm -rf "$GPU_CI_WORKDIR"' EXIT
