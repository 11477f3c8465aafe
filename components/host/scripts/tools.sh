# shellcheck shell=bash
# Step tools: kind, kubectl, helm and nvkind at pinned versions. Every download is
# SHA-256 verified, and ALL artifacts are fetched and verified before ANY is installed,
# so a mismatch installs nothing. Installs are atomic (install to a sibling, rename).
# A stamp per tool (STATEDIR/<tool>: "<identity> <installed sha256>") makes re-runs
# no-ops and notices a binary replaced behind our back.
# nvkind has no releases: NVKIND_SOURCE=binary takes NVKIND_URL + NVKIND_SHA256;
# NVKIND_SOURCE=go builds NVKIND_MODULE@NVKIND_COMMIT with a verified Go tarball.
# Parameters: ROOT, BINDIR, STATEDIR, KIND_URL, KIND_SHA256, KUBECTL_URL, KUBECTL_SHA256,
#   HELM_URL, HELM_SHA256, HELM_ARCHIVE_MEMBER, NVKIND_SOURCE, NVKIND_URL, NVKIND_SHA256,
#   NVKIND_MODULE, NVKIND_COMMIT, GO_URL, GO_SHA256.

# is_current TOOL IDENTITY: the stamp names IDENTITY and the binary is the one we put there.
is_current() {
  local stamp="$ROOT$STATEDIR/$1" bin="$ROOT$BINDIR/$1" identity installed
  [ -f "$stamp" ] && [ -f "$bin" ] || return 1
  read -r identity installed <"$stamp" || return 1
  [ "$identity" = "$2" ] && [ "$(sha256_of "$bin")" = "$installed" ]
}

prepared=()
identities=()

# prepare_download TOOL URL SHA256: fetch and verify a bare binary.
prepare_download() {
  fetch "$2" "$GPU_CI_WORKDIR/$1.download"
  verify_sha256 "$GPU_CI_WORKDIR/$1.download" "$3" "$1 ($2)"
  mv "$GPU_CI_WORKDIR/$1.download" "$GPU_CI_WORKDIR/$1"
}

if ! is_current kind "$KIND_SHA256"; then
  prepare_download kind "$KIND_URL" "$KIND_SHA256"
  prepared+=(kind)
  identities+=("$KIND_SHA256")
fi

if ! is_current kubectl "$KUBECTL_SHA256"; then
  prepare_download kubectl "$KUBECTL_URL" "$KUBECTL_SHA256"
  prepared+=(kubectl)
  identities+=("$KUBECTL_SHA256")
fi

if ! is_current helm "$HELM_SHA256"; then
  fetch "$HELM_URL" "$GPU_CI_WORKDIR/helm.tar.gz"
  verify_sha256 "$GPU_CI_WORKDIR/helm.tar.gz" "$HELM_SHA256" "helm ($HELM_URL)"
  mkdir -p "$GPU_CI_WORKDIR/helm-x"
  tar -xzf "$GPU_CI_WORKDIR/helm.tar.gz" -C "$GPU_CI_WORKDIR/helm-x" "$HELM_ARCHIVE_MEMBER" ||
    die "helm archive has no $HELM_ARCHIVE_MEMBER"
  mv "$GPU_CI_WORKDIR/helm-x/$HELM_ARCHIVE_MEMBER" "$GPU_CI_WORKDIR/helm"
  prepared+=(helm)
  identities+=("$HELM_SHA256")
fi

case "$NVKIND_SOURCE" in
  binary) nvkind_identity="$NVKIND_SHA256" ;;
  go) nvkind_identity="go:$NVKIND_COMMIT:$GO_SHA256" ;;
  *) die "NVKIND_SOURCE must be binary or go, not $NVKIND_SOURCE" ;;
esac
if ! is_current nvkind "$nvkind_identity"; then
  if [ "$NVKIND_SOURCE" = binary ]; then
    prepare_download nvkind "$NVKIND_URL" "$NVKIND_SHA256"
  else
    fetch "$GO_URL" "$GPU_CI_WORKDIR/go.tar.gz"
    verify_sha256 "$GPU_CI_WORKDIR/go.tar.gz" "$GO_SHA256" "go toolchain ($GO_URL)"
    mkdir -p "$GPU_CI_WORKDIR/go-root" "$GPU_CI_WORKDIR/gobin"
    tar -xzf "$GPU_CI_WORKDIR/go.tar.gz" -C "$GPU_CI_WORKDIR/go-root"
    [ -x "$GPU_CI_WORKDIR/go-root/go/bin/go" ] || die "go toolchain archive has no go/bin/go"
    # GOTOOLCHAIN=local: build with exactly the verified toolchain, never a downloaded one.
    env GOTOOLCHAIN=local GOFLAGS="-mod=mod -modcacherw" \
      GOPATH="$GPU_CI_WORKDIR/gopath" GOCACHE="$GPU_CI_WORKDIR/gocache" \
      GOBIN="$GPU_CI_WORKDIR/gobin" \
      "$GPU_CI_WORKDIR/go-root/go/bin/go" install "$NVKIND_MODULE@$NVKIND_COMMIT" ||
      die "go install $NVKIND_MODULE@$NVKIND_COMMIT failed"
    [ -f "$GPU_CI_WORKDIR/gobin/nvkind" ] || die "go install produced no nvkind binary"
    mv "$GPU_CI_WORKDIR/gobin/nvkind" "$GPU_CI_WORKDIR/nvkind"
  fi
  prepared+=(nvkind)
  identities+=("$nvkind_identity")
fi

# Every artifact is verified: only now touch BINDIR.
for i in "${!prepared[@]}"; do
  tool="${prepared[$i]}"
  dest="$ROOT$BINDIR/$tool"
  as_root install -D -m 0755 "$GPU_CI_WORKDIR/$tool" "$dest.gpu-ci-new"
  as_root mv -f "$dest.gpu-ci-new" "$dest"
  printf '%s %s\n' "${identities[$i]}" "$(sha256_of "$dest")" >"$GPU_CI_WORKDIR/$tool.stamp"
  as_root install -D -m 0644 "$GPU_CI_WORKDIR/$tool.stamp" "$ROOT$STATEDIR/$tool"
  log "installed $tool"
done

installed_json=""
for tool in "${prepared[@]}"; do
  installed_json+="${installed_json:+,}\"$tool\""
done
if [ "${#prepared[@]}" -gt 0 ]; then
  result true "\"installed\":[$installed_json]"
else
  result false '"installed":[]'
fi
