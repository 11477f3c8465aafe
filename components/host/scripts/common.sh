# shellcheck shell=bash
# gpu-ci's shell functions that the host steps and the gpu-cluster action share: the log
# line, root through sudo, downloads retried with backoff, file digests. Each caller
# defines `die` (a host step: the line `gpu-ci step <name>: <cause>`; the action: that line
# and an `::error` annotation) and sets GPU_CI_STEP, RETRY_ATTEMPTS, RETRY_BASE_SECONDS.
#
# components/host/render.py inlines each function into the rendered host steps where a
# `# @inline common.sh: NAME...` line of lib.sh names it (the bytes of a step, its
# trigger, are those it had when these lived in lib.sh); the action's lib.sh sources it.

log() {
  printf 'gpu-ci step %s: %s\n' "$GPU_CI_STEP" "$*" >&2
}

# as_root CMD...: run CMD as root, through sudo only when not already root.
as_root() {
  if [ "$EUID" -eq 0 ]; then
    "$@"
  else
    sudo -n "$@"
  fi
}

# backoff ATTEMPT: sleep RETRY_BASE_SECONDS * 2^(ATTEMPT-1).
backoff() {
  local delay=$((RETRY_BASE_SECONDS * (1 << ($1 - 1))))
  if [ "$delay" -gt 0 ]; then
    sleep "$delay"
  fi
}

# fetch URL DEST: download over https, retrying curl's network-class failures
# (DNS, connect, timeout, TLS, reset). HTTP errors (4xx/5xx) fail at once.
fetch() {
  local url="$1" dest="$2" attempt=1 rc
  while :; do
    rc=0
    curl -fsSL --proto '=https' --connect-timeout 20 -o "$dest" "$url" || rc=$?
    if [ "$rc" -eq 0 ]; then
      return 0
    fi
    case "$rc" in
      5 | 6 | 7 | 18 | 28 | 35 | 52 | 55 | 56) ;;
      *) die "download of $url failed (curl exit $rc)" ;;
    esac
    if [ "$attempt" -ge "$RETRY_ATTEMPTS" ]; then
      die "download of $url failed after $attempt attempts (curl exit $rc)"
    fi
    log "download of $url: network error (curl exit $rc), retry $attempt/$RETRY_ATTEMPTS"
    backoff "$attempt"
    attempt=$((attempt + 1))
  done
}

# sha256_of FILE: the file's SHA-256 as 64 hex characters.
sha256_of() {
  local sum
  sum="$(sha256sum "$1")"
  printf '%s' "${sum%% *}"
}
