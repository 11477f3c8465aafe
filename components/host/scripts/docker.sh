# shellcheck shell=bash
# Step docker: Docker Engine from Docker's apt repository, service enabled, user in
# the docker group. Each part is checked on its own, so a re-run changes nothing.
# Parameters: ROOT, DOCKER_REPO_URL, DOCKER_PACKAGES (array), DOCKER_USER.

keyring=/etc/apt/keyrings/docker.asc
source_list=/etc/apt/sources.list.d/docker.list
changed=false
repo_changed=false

if [ ! -s "$ROOT$keyring" ]; then
  fetch "$DOCKER_REPO_URL/gpg" "$GPU_CI_WORKDIR/docker.asc"
  as_root install -D -m 0644 "$GPU_CI_WORKDIR/docker.asc" "$ROOT$keyring"
  repo_changed=true
fi

# shellcheck disable=SC1091
codename="$(. "$ROOT/etc/os-release" && printf '%s' "${VERSION_CODENAME:-}")"
[ -n "$codename" ] || die "no VERSION_CODENAME in $ROOT/etc/os-release"
arch="$(dpkg --print-architecture)"
printf 'deb [arch=%s signed-by=%s] %s %s stable\n' \
  "$arch" "$keyring" "$DOCKER_REPO_URL" "$codename" >"$GPU_CI_WORKDIR/docker.list"
if install_file_if_changed "$GPU_CI_WORKDIR/docker.list" "$ROOT$source_list" 0644; then
  repo_changed=true
fi

missing=()
for pkg in "${DOCKER_PACKAGES[@]}"; do
  if [ -z "$(deb_installed_version "$pkg")" ]; then
    missing+=("$pkg")
  fi
done
if [ "$repo_changed" = true ] || [ "${#missing[@]}" -gt 0 ]; then
  apt_get update
fi
if [ "${#missing[@]}" -gt 0 ]; then
  apt_get install --no-install-recommends "${missing[@]}"
  changed=true
fi
if [ "$repo_changed" = true ]; then
  changed=true
fi

if ! systemctl is-enabled --quiet docker || ! systemctl is-active --quiet docker; then
  as_root systemctl enable --now docker || die "could not enable and start docker.service"
  changed=true
fi

if [ -n "$DOCKER_USER" ]; then
  members="$(getent group docker)" || die "group docker does not exist"
  members=",${members##*:},"
  if [ "${members#*,"$DOCKER_USER",}" = "$members" ]; then
    as_root usermod -aG docker "$DOCKER_USER"
    changed=true
  fi
fi

result "$changed"
