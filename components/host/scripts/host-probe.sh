#!/usr/bin/env bash
# Host probe: what the host layer installed on a VM, read only, as one JSON object.
#
# pulumi-command resources have no Read (pulumi/pulumi-command#432), so `pulumi refresh`
# cannot see a driver upgraded or a toolkit package changed by hand on the VM. The drift
# job (.github/workflows/drift.yml) runs this over SSH and compares the report with the
# stack's pins (components/host/probe_compare.py). It writes nothing: no package manager,
# Docker or kind command that changes state. A reading that fails is named under "errors"
# (its value null) and the other readings still run; the probe itself always exits 0
# unless its own output fails.
#
# Usage: bash host-probe.sh [BINDIR [STATEDIR]]
#   BINDIR   where the tools step installs kind and nvkind (default /usr/local/bin)
#   STATEDIR the tools step's stamps, "<identity> <sha256>" per tool (default
#            /var/lib/gpu-ci/tools; components/host/scripts/tools.sh)
set -uo pipefail
export LC_ALL=C

readonly BINDIR="${1:-/usr/local/bin}"
readonly STATEDIR="${2:-/var/lib/gpu-ci/tools}"
# components/host/params/bootstrap.py ContainerToolkitParams.toolkit_packages
readonly TOOLKIT_PACKAGES=(nvidia-container-toolkit nvidia-container-toolkit-base
  libnvidia-container-tools libnvidia-container1)

errors=()
errfile="$(mktemp)"
trap 'rm -f "$errfile"' EXIT

# json_string TEXT: TEXT as a JSON string (control characters other than tab and newline
# dropped); json_value TEXT: the same, or null for empty TEXT.
json_string() {
  local s="$1"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  s="${s//$'\t'/\\t}"
  s="${s//$'\n'/\\n}"
  s="$(printf '%s' "$s" | tr -d '\000-\037')"
  printf '"%s"' "$s"
}

json_value() {
  if [ -n "$1" ]; then json_string "$1"; else printf 'null'; fi
}

# failed WHAT: record that reading WHAT failed, with the first line of its stderr.
failed() {
  local why
  why="$(head -n 1 "$errfile" 2>/dev/null)"
  errors+=("$1${why:+: $why}")
}

# as_root CMD...: Docker and kind need root (or the docker group): sudo -n, never a prompt.
as_root() {
  if [ "$EUID" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

sha256_of() {
  local sum
  sum="$(sha256sum "$1" 2>"$errfile")" || return 1
  printf '%s' "${sum%% *}"
}

arch="$(dpkg --print-architecture 2>"$errfile")" || failed "dpkg --print-architecture"

# The driver the kernel runs (nvidia-smi), and the driver packages dpkg has installed.
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>"$errfile")" ||
  { failed "nvidia-smi"; driver=""; }
driver="$(printf '%s\n' "$driver" | head -n 1 | tr -d ' ')"
driver_packages=""
if listed="$(dpkg-query -W -f='${Package}\t${Version}\t${db:Status-Abbrev}\n' \
  'nvidia-driver-*' 2>"$errfile")"; then
  while IFS=$'\t' read -r pkg version status; do
    [ "${status:0:2}" = ii ] || continue
    driver_packages+="${driver_packages:+,}$(json_string "$pkg"):$(json_string "$version")"
  done <<<"$listed"
elif [ -s "$errfile" ] && ! grep -q 'no packages found' "$errfile"; then
  failed "dpkg-query nvidia-driver-*"
fi

toolkit=""
for pkg in "${TOOLKIT_PACKAGES[@]}"; do
  version=""
  if row="$(dpkg-query -W -f='${Version}\t${db:Status-Abbrev}' "$pkg" 2>"$errfile")"; then
    [ "$(cut -f 2 <<<"$row" | cut -c 1-2)" = ii ] && version="$(cut -f 1 <<<"$row")"
  elif ! grep -q 'no packages found' "$errfile"; then
    failed "dpkg-query $pkg"
  fi
  toolkit+="${toolkit:+,}$(json_string "$pkg"):$(json_value "$version")"
done

runtime="$(as_root docker info --format '{{.DefaultRuntime}}' 2>"$errfile")" ||
  { failed "docker info"; runtime=""; }

kind_version=""
kind_sha=""
if [ -x "$BINDIR/kind" ]; then
  # `kind version`: "kind v0.31.0 go1.25.5 linux/amd64"
  if words="$("$BINDIR/kind" version 2>"$errfile")"; then
    read -r _ kind_version _ <<<"$words"
  else
    failed "kind version"
  fi
  kind_sha="$(sha256_of "$BINDIR/kind")" || failed "sha256sum kind"
else
  errors+=("kind: no executable $BINDIR/kind")
fi

nvkind_identity=""
nvkind_stamp_sha=""
nvkind_sha=""
if [ -f "$STATEDIR/nvkind" ]; then
  read -r nvkind_identity nvkind_stamp_sha <"$STATEDIR/nvkind" || failed "read $STATEDIR/nvkind"
else
  errors+=("nvkind: no stamp $STATEDIR/nvkind (the tools step writes it)")
fi
if [ -x "$BINDIR/nvkind" ]; then
  nvkind_sha="$(sha256_of "$BINDIR/nvkind")" || failed "sha256sum nvkind"
else
  errors+=("nvkind: no executable $BINDIR/nvkind")
fi

clusters="null"
if [ -x "$BINDIR/kind" ]; then
  if names="$(as_root "$BINDIR/kind" get clusters 2>"$errfile")"; then
    clusters=""
    while read -r name; do
      [ -n "$name" ] && clusters+="${clusters:+,}$(json_string "$name")"
    done <<<"$names"
    clusters="[$clusters]"
  else
    failed "kind get clusters"
  fi
fi

error_list=""
for e in "${errors[@]}"; do
  error_list+="${error_list:+,}$(json_string "$e")"
done

printf '{"probe":1,"arch":%s,' "$(json_value "$arch")"
printf '"driver":{"version":%s,"packages":{%s}},' "$(json_value "$driver")" "$driver_packages"
printf '"toolkit":{%s},' "$toolkit"
printf '"docker":{"defaultRuntime":%s},' "$(json_value "$runtime")"
printf '"kind":{"version":%s,"sha256":%s},' "$(json_value "$kind_version")" \
  "$(json_value "$kind_sha")"
printf '"nvkind":{"identity":%s,"stampSha256":%s,"sha256":%s},' \
  "$(json_value "$nvkind_identity")" "$(json_value "$nvkind_stamp_sha")" \
  "$(json_value "$nvkind_sha")"
printf '"clusters":%s,"errors":[%s]}\n' "$clusters" "$error_list"
