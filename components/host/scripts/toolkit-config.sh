# shellcheck shell=bash
# Step toolkit-config: what nvkind's GPU injection needs from the host toolkit:
# /dev/null volume mounts accepted as device requests, nvidia as Docker's default
# runtime, CDI on or off. Docker restarts only when a config file's bytes changed,
# so a re-run never bounces running containers. A restart that fails leaves a marker
# (STATEDIR/docker-restart-pending): the re-run, whose files no longer change, restarts
# Docker then, so a partial failure converges instead of leaving the old runtime running.
# Parameters: ROOT, TOOLKIT_CONFIG, DOCKER_DAEMON_JSON, CDI_ENABLED, STATEDIR.

readonly pending="$ROOT$STATEDIR/docker-restart-pending"

snapshot() {
  local f out=""
  for f in "$ROOT$TOOLKIT_CONFIG" "$ROOT$DOCKER_DAEMON_JSON"; do
    if [ -f "$f" ]; then
      out+="$(sha256_of "$f") "
    else
      out+="absent "
    fi
  done
  printf '%s' "$out"
}

before="$(snapshot)"
as_root nvidia-ctk config --config="$ROOT$TOOLKIT_CONFIG" --in-place \
  --set accept-nvidia-visible-devices-as-volume-mounts=true
runtime_args=(runtime configure --runtime=docker --set-as-default
  --config="$ROOT$DOCKER_DAEMON_JSON")
if [ "$CDI_ENABLED" = true ]; then
  runtime_args+=(--cdi.enabled)
fi
as_root nvidia-ctk "${runtime_args[@]}"
after="$(snapshot)"

if [ "$before" = "$after" ] && [ ! -f "$pending" ]; then
  result false "\"cdiEnabled\":$CDI_ENABLED"
  exit 0
fi
as_root mkdir -p "$ROOT$STATEDIR"
as_root touch "$pending"
as_root systemctl restart docker || die "docker restart failed after reconfiguring the runtime"
as_root rm -f "$pending"
result true "\"cdiEnabled\":$CDI_ENABLED"
