# shellcheck shell=bash
# Step toolkit-config: what nvkind's GPU injection needs from the host toolkit:
# /dev/null volume mounts accepted as device requests, nvidia as Docker's default
# runtime, CDI on or off. Docker restarts only when a config file's bytes changed,
# so a re-run never bounces running containers.
# Parameters: ROOT, TOOLKIT_CONFIG, DOCKER_DAEMON_JSON, CDI_ENABLED.

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

if [ "$before" = "$after" ]; then
  result false "\"cdiEnabled\":$CDI_ENABLED"
  exit 0
fi
as_root systemctl restart docker || die "docker restart failed after reconfiguring the runtime"
result true "\"cdiEnabled\":$CDI_ENABLED"
