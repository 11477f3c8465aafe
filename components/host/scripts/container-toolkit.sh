# shellcheck shell=bash
# Step container-toolkit: NVIDIA Container Toolkit from NVIDIA's apt repository with
# all four packages at ONE exact version, held so unattended upgrades cannot split
# them. A different pin unholds, installs (downgrades allowed) and re-holds.
# Parameters: ROOT, TOOLKIT_REPO_URL, TOOLKIT_VERSION, TOOLKIT_PACKAGES (array).

keyring=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg
source_list=/etc/apt/sources.list.d/nvidia-container-toolkit.list
changed=false
repo_changed=false

if [ ! -s "$ROOT$keyring" ]; then
  fetch "$TOOLKIT_REPO_URL/gpgkey" "$GPU_CI_WORKDIR/gpgkey"
  gpg --batch --yes --dearmor -o "$GPU_CI_WORKDIR/keyring.gpg" "$GPU_CI_WORKDIR/gpgkey"
  as_root install -D -m 0644 "$GPU_CI_WORKDIR/keyring.gpg" "$ROOT$keyring"
  repo_changed=true
fi

arch="$(dpkg --print-architecture)"
printf 'deb [signed-by=%s] %s/stable/deb/%s /\n' "$keyring" "$TOOLKIT_REPO_URL" "$arch" \
  >"$GPU_CI_WORKDIR/toolkit.list"
if install_file_if_changed "$GPU_CI_WORKDIR/toolkit.list" "$ROOT$source_list" 0644; then
  repo_changed=true
fi

held=" $(apt-mark showhold | tr '\n' ' ') "
off_pin=()
to_unhold=()
to_hold=()
for pkg in "${TOOLKIT_PACKAGES[@]}"; do
  if [ "$(deb_installed_version "$pkg")" != "$TOOLKIT_VERSION" ]; then
    off_pin+=("$pkg")
  fi
  if [ "${held#* "$pkg" }" != "$held" ]; then
    to_unhold+=("$pkg")
  else
    to_hold+=("$pkg")
  fi
done

if [ "${#off_pin[@]}" -gt 0 ]; then
  log "installing ${TOOLKIT_PACKAGES[*]} at $TOOLKIT_VERSION (off pin: ${off_pin[*]})"
  if [ "${#to_unhold[@]}" -gt 0 ]; then
    as_root apt-mark unhold "${to_unhold[@]}"
  fi
  apt_get update
  pinned=()
  for pkg in "${TOOLKIT_PACKAGES[@]}"; do
    pinned+=("$pkg=$TOOLKIT_VERSION")
  done
  apt_get install --no-install-recommends --allow-downgrades "${pinned[@]}"
  as_root apt-mark hold "${TOOLKIT_PACKAGES[@]}"
  changed=true
elif [ "${#to_hold[@]}" -gt 0 ]; then
  if [ "$repo_changed" = true ]; then
    apt_get update
  fi
  as_root apt-mark hold "${to_hold[@]}"
  changed=true
elif [ "$repo_changed" = true ]; then
  apt_get update
  changed=true
fi

result "$changed" "\"toolkitVersion\":\"$(json_escape "$TOOLKIT_VERSION")\""
