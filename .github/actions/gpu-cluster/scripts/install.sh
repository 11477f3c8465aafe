#!/usr/bin/env bash
# Step install: the pinned Pulumi CLI and the provider plugins the stack uses, and the host
# tools of an earlier run (kind, kubectl, helm, nvkind) from the cache.
#
# The CLI: pulumi-vVERSION-linux-ARCH.tar.gz, kept in the cache folder (actions/cache,
# keyed by the pins) and checked against its SHA-256 before every extraction, cached or
# downloaded: INPUT_PULUMI_SHA256 when given, else the line for that file in the release's
# published checksums file (pulumi-VERSION-checksums.txt). A mismatch installs nothing.
# Plugins: `pulumi plugin install resource NAME VERSION --exact`, at requirements.txt's
# versions (the SDKs'), into the cached plugin folder.
# Environment: INPUT_PULUMI_VERSION, INPUT_PULUMI_SHA256; $GPU_CI_WORK/env and plan.env;
# GPU_CI_PULUMI_DOWNLOADS, a mirror of get.pulumi.com/releases/sdk (the same files).
GPU_CI_STEP=install
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_folder
load_env
load_env "$GPU_CI_WORK/plan.env"

# The inputs again (configure checked them): they name a URL and a file.
version="${INPUT_PULUMI_VERSION:-}"
pinned="${INPUT_PULUMI_SHA256:-}"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "input pulumi-version '$version' must be X.Y.Z"
[[ $pinned =~ ^([0-9a-f]{64})?$ ]] ||
  die "input pulumi-sha256 '$pinned' must be 64 lowercase hex characters (or empty)"
# A mirror serves the checksums file too: a digest from it would check nothing.
if [ -n "${GPU_CI_PULUMI_DOWNLOADS:-}" ] && [ -z "$pinned" ]; then
  die "GPU_CI_PULUMI_DOWNLOADS (a mirror) needs input pulumi-sha256: the mirror's own checksums file would check nothing"
fi
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no Pulumi CLI for this runner's CPU ($(uname -m))" ;;
esac
archive="pulumi-v$version-linux-$arch.tar.gz"
base="${GPU_CI_PULUMI_DOWNLOADS:-https://get.pulumi.com/releases/sdk}"
cache="$GPU_CI_CACHE/tools/pulumi"
mkdir -p "$cache"

expected="$pinned"
if [ -z "$expected" ]; then
  fetch "$base/pulumi-$version-checksums.txt" "$GPU_CI_WORK/pulumi-checksums.txt"
  while read -r digest name; do
    if [ "$name" = "$archive" ]; then
      expected="$digest"
    fi
  done <"$GPU_CI_WORK/pulumi-checksums.txt"
  [[ $expected =~ ^[0-9a-f]{64}$ ]] ||
    die "pulumi-$version-checksums.txt lists no SHA-256 for $archive"
  log "$archive: SHA-256 $expected, from the release's checksums file (set pulumi-sha256 to pin it)"
fi

if [ -f "$cache/$archive" ] && [ "$(sha256_of "$cache/$archive")" = "$expected" ]; then
  log "$archive: from the cache, SHA-256 verified"
else
  if [ -f "$cache/$archive" ]; then
    warn "$archive in the cache does not match SHA-256 $expected; downloading it again"
    rm -f "$cache/$archive"
  fi
  fetch "$base/$archive" "$GPU_CI_WORK/$archive.download"
  actual="$(sha256_of "$GPU_CI_WORK/$archive.download")"
  if [ "$actual" != "$expected" ]; then
    rm -f "$GPU_CI_WORK/$archive.download"
    die "checksum mismatch for $archive ($base/$archive): expected $expected, got $actual"
  fi
  mv "$GPU_CI_WORK/$archive.download" "$cache/$archive"
  log "$archive: downloaded, SHA-256 verified"
fi

rm -rf "$GPU_CI_WORK/pulumi"
tar -xzf "$cache/$archive" -C "$GPU_CI_WORK" || die "cannot extract $archive"
[ -x "$GPU_CI_PULUMI" ] || die "$archive has no pulumi/pulumi"
pulumi_env
installed="$("$GPU_CI_PULUMI" version)" || die "pulumi version failed"
[ "$installed" = "v$version" ] || die "pulumi version says $installed, not the pinned v$version"

# Plugins: the cached folder is PULUMI_HOME's plugins (PULUMI_HOME itself, with the
# backend login, stays in this job's folder).
mkdir -p "$PULUMI_HOME" "$GPU_CI_CACHE/tools/plugins"
rm -rf "$PULUMI_HOME/plugins"
ln -s "$GPU_CI_CACHE/tools/plugins" "$PULUMI_HOME/plugins"
for plugin in $GPU_CI_PLUGINS; do
  "$GPU_CI_PULUMI" plugin install resource "${plugin%@*}" "${plugin#*@}" --exact >&2 ||
    die "pulumi plugin install resource ${plugin%@*} ${plugin#*@} failed"
done

bash "$(dirname "${BASH_SOURCE[0]}")/tools-cache.sh" restore
output pulumi-version "$version"
