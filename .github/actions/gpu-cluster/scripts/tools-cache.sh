#!/usr/bin/env bash
# Step tools-cache: the host tools step's installs (kind, kubectl, helm, nvkind), kept
# between runs. The tools step (components/host/scripts/tools.sh) skips a tool whose stamp
# STATEDIR/TOOL reads "<identity> <sha256 of BINDIR/TOOL>", the identity being the pin it
# was installed from: the published SHA-256 of its download, or go:COMMIT:GO_SHA256 for an
# nvkind built from source. This step keeps exactly those pairs:
#
#   tools-cache.sh collect   after `pulumi up`: copy each installed tool whose stamp names
#                            this plan's pin, and its stamp, into the cache folder
#   tools-cache.sh restore   before it: install each cached tool whose stamp names this
#                            plan's pin and whose bytes match the stamp (kind and kubectl,
#                            downloaded as they are installed, also the pin itself), so the
#                            tools step finds them current and downloads nothing
#
# A cached file that fails a check is dropped with a warning (the tools step then downloads
# and verifies as on a first run). The pins come from plan.env (configure.py read them from
# the offline plan's host-tools step), so cache and step can never disagree on a version.
GPU_CI_STEP=tools-cache
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_folder
load_env
load_env "$GPU_CI_WORK/plan.env"

mode="${1:-}"
cache="$GPU_CI_CACHE/tools/host"
bindir="$GPU_CI_ROOT$GPU_CI_TOOLS_BINDIR"
statedir="$GPU_CI_ROOT$GPU_CI_TOOLS_STATEDIR"
mkdir -p "$cache"

# identity TOOL: the stamp identity this plan's pins give TOOL.
identity() {
  case "$1" in
    kind) printf '%s' "$GPU_CI_TOOLS_KIND_SHA256" ;;
    kubectl) printf '%s' "$GPU_CI_TOOLS_KUBECTL_SHA256" ;;
    helm) printf '%s' "$GPU_CI_TOOLS_HELM_SHA256" ;;
    nvkind)
      if [ "$GPU_CI_TOOLS_NVKIND_SOURCE" = binary ]; then
        printf '%s' "$GPU_CI_TOOLS_NVKIND_SHA256"
      else
        printf 'go:%s:%s' "$GPU_CI_TOOLS_NVKIND_COMMIT" "$GPU_CI_TOOLS_GO_SHA256"
      fi
      ;;
  esac
}

# matches DIR TOOL STAMP: STAMP names this plan's pin for TOOL, and DIR/TOOL has the
# bytes STAMP records.
matches() {
  local binary="$1/$2" stamp="$3" want have digest
  [ -f "$binary" ] && [ -f "$stamp" ] || return 1
  read -r have digest <"$stamp" || return 1
  want="$(identity "$2")"
  [ -n "$want" ] && [ "$have" = "$want" ] || return 1
  [ "$(sha256_of "$binary")" = "$digest" ] || return 1
  case "$2" in
    kind | kubectl) [ "$digest" = "$want" ] ;;  # the download itself: the published digest
    nvkind) [ "$GPU_CI_TOOLS_NVKIND_SOURCE" != binary ] || [ "$digest" = "$want" ] ;;
  esac
}

case "$mode" in
  restore)
    restored=()
    for tool in kind kubectl helm nvkind; do
      if matches "$bindir" "$tool" "$statedir/$tool"; then
        continue  # already current on this host
      fi
      [ -f "$cache/$tool" ] || continue
      if ! matches "$cache" "$tool" "$cache/$tool.stamp"; then
        warn "cached $tool does not match this plan's pin or its own stamp; dropped"
        rm -f "$cache/$tool" "$cache/$tool.stamp"
        continue
      fi
      as_root install -D -m 0755 "$cache/$tool" "$bindir/$tool.gpu-ci-new"
      as_root mv -f "$bindir/$tool.gpu-ci-new" "$bindir/$tool"
      as_root install -D -m 0644 "$cache/$tool.stamp" "$statedir/$tool"
      restored+=("$tool")
    done
    log "restored from the cache: ${restored[*]:-nothing}"
    output tools-restored "${restored[*]:-}"
    ;;
  collect)
    kept=()
    for tool in kind kubectl helm nvkind; do
      if matches "$bindir" "$tool" "$statedir/$tool" &&
        ! { [ -f "$cache/$tool" ] && cmp -s "$bindir/$tool" "$cache/$tool"; }; then
        cp "$bindir/$tool" "$cache/$tool.new" && mv -f "$cache/$tool.new" "$cache/$tool"
        cp "$statedir/$tool" "$cache/$tool.stamp"
        kept+=("$tool")
      fi
    done
    log "kept for the cache: ${kept[*]:-nothing new}"
    ;;
  *) die "usage: tools-cache.sh restore|collect" ;;
esac
