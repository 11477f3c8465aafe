# shellcheck shell=bash
# Step github-runner-remove (pulumi destroy): stop and disable the runner service,
# deregister the runner from GitHub, remove what github-runner installed. Every part is
# optional, so a second run, or a run on a host where github-runner never ran or failed
# half-way, succeeds: a missing unit, a missing runner id and a runner GitHub already
# removed (404) all count as done.
# Deregistration reuses the installed loop script (`deregister`), which mints a token
# from the GitHub App key on the host: the key must still be there.
# Parameters: ROOT, SERVICE_NAME, ENV_FILE, LOOP_SCRIPT, RUNNER_HOME, STATEDIR, PURGE.
#
# Result contract (last stdout line):
#   {"step":"github-runner-remove","changed":true|false,"deregistered":true|false}

changed=false
deregistered=false
unit="/etc/systemd/system/$SERVICE_NAME.service"
sudoers="/etc/sudoers.d/$SERVICE_NAME"

if [ -f "$ROOT$unit" ]; then
  # Stopping runs the unit's ExecStopPost, which deregisters an ephemeral runner too.
  as_root systemctl disable --now "$SERVICE_NAME" ||
    die "could not stop and disable $SERVICE_NAME.service"
  changed=true
fi

registered=false
if [ -f "$ROOT$STATEDIR/current-runner-id" ]; then
  registered=true
fi
for config in "$ROOT$RUNNER_HOME"/*/.runner; do
  if [ -f "$config" ]; then
    registered=true
  fi
done
if [ "$registered" = true ]; then
  if [ ! -f "$ROOT$ENV_FILE" ] || [ ! -f "$ROOT$LOOP_SCRIPT" ]; then
    die "a runner is registered but $ENV_FILE or $LOOP_SCRIPT is missing: cannot deregister it"
  fi
  as_root env GPU_CI_ROOT="$ROOT" bash "$ROOT$LOOP_SCRIPT" deregister "$ENV_FILE" ||
    die "could not deregister the runner from GitHub (cause above)"
  deregistered=true
  changed=true
fi

unit_removed=false
# The runtime directory (a handoff, if a start was cut short) goes with the unit.
for file in "$unit" "$ENV_FILE" "$LOOP_SCRIPT" "$sudoers" "/run/$SERVICE_NAME"; do
  if [ -e "$ROOT$file" ]; then
    as_root rm -rf "$ROOT$file"
    log "removed $file"
    changed=true
    if [ "$file" = "$unit" ]; then
      unit_removed=true
    fi
  fi
done
if [ "$unit_removed" = true ]; then
  as_root systemctl daemon-reload
fi

if [ "$PURGE" = true ]; then
  for dir in "$RUNNER_HOME" "$STATEDIR"; do
    if [ -e "$ROOT$dir" ]; then
      as_root rm -rf "$ROOT$dir"
      log "removed $dir"
      changed=true
    fi
  done
fi

result "$changed" "\"deregistered\":$deregistered"
