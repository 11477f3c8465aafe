#!/bin/bash
# The read-only commands host-probe.sh calls, answered from $SANDBOX/state; every call is
# recorded in $SANDBOX/calls.log. A command the probe should never run is not here: it
# fails with 127 (PATH holds only these stubs and a few harmless real tools).
set -euo pipefail

name="$(basename "$0")"
state="$SANDBOX/state"
printf '%s\n' "$name${*:+ $*}" >>"$SANDBOX/calls.log"

case "$name" in
  sudo)
    [ "${1:-}" != -n ] || shift
    exec "$@"
    ;;
  dpkg)
    [ "$1" = --print-architecture ] && cat "$state/arch"
    ;;
  nvidia-smi)
    if [ ! -f "$state/driver-version" ]; then
      echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver." >&2
      exit 9
    fi
    cat "$state/driver-version"
    ;;
  dpkg-query)
    pattern="${!#}"
    if [ -f "$state/dpkg-broken" ]; then
      echo "dpkg-query: error: parsing file '/var/lib/dpkg/status' near line 4" >&2
      exit 2
    fi
    found=false
    for file in "$state"/dpkg/$pattern; do
      [ -f "$file" ] || continue
      found=true
      if [ "$pattern" = "${file##*/}" ]; then
        printf '%s\t%s' "$(cat "$file")" "${DPKG_STATUS:-ii }"
      else
        printf '%s\t%s\t%s\n' "${file##*/}" "$(cat "$file")" "ii "
      fi
    done
    if [ "$found" = false ]; then
      echo "dpkg-query: no packages found matching $pattern" >&2
      exit 1
    fi
    ;;
  docker)
    if [ -f "$state/docker-down" ]; then
      echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2
      exit 1
    fi
    cat "$state/docker-runtime"
    ;;
  kind)
    case "$*" in
      version) cat "$state/kind-version" ;;
      "get clusters")
        if [ -z "$(ls -A "$state/kind-clusters" 2>/dev/null)" ]; then
          echo "No kind clusters found." >&2
        else
          ls "$state/kind-clusters"
        fi
        ;;
      *)
        echo "stub: kind $* is not read-only" >&2
        exit 127
        ;;
    esac
    ;;
  *)
    echo "stub: no behaviour for $name" >&2
    exit 127
    ;;
esac
