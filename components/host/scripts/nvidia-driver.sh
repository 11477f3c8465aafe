# shellcheck shell=bash
# Step nvidia-driver: make the NVIDIA kernel driver usable.
# Parameters: DRIVER_PACKAGE, REBOOT, REBOOT_DELAY_SECONDS, REBOOT_REQUIRED_EXIT.
#
# Result contract (last stdout line, see components/host/result.py):
#   exit 0,  "rebootRequired":false                   driver loaded (OCI GPU images ship one)
#   exit 0,  "rebootRequired":true,"rebootScheduled":true
#            installed now; a reboot fires in REBOOT_DELAY_SECONDS, after this script has
#            exited, so the caller gets a clean exit before the connection drops and then
#            waits for the host to return.
#   exit REBOOT_REQUIRED_EXIT, "rebootRequired":true,"rebootScheduled":false
#            installed but REBOOT=false (e.g. the local machine): a person must reboot.

driver_version() {
  local out
  out="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null)" || return 0
  printf '%s' "${out%%$'\n'*}"
}

current="$(driver_version)"
if [ -n "$current" ]; then
  log "driver $current already loaded, nothing to do"
  result false "\"driverVersion\":\"$(json_escape "$current")\",\"rebootRequired\":false"
  exit 0
fi

changed=false
if [ -z "$(deb_installed_version "$DRIVER_PACKAGE")" ]; then
  apt_get update
  apt_get install --no-install-recommends "$DRIVER_PACKAGE"
  changed=true
else
  log "$DRIVER_PACKAGE is installed but no driver is loaded: a reboot is pending"
fi

if [ "$REBOOT" = true ]; then
  # A transient timer, not a direct reboot: this process must exit 0 before sshd dies.
  as_root systemd-run --on-active="$REBOOT_DELAY_SECONDS" --timer-property=AccuracySec=1s \
    systemctl reboot
  log "reboot scheduled in ${REBOOT_DELAY_SECONDS}s to load $DRIVER_PACKAGE"
  result "$changed" '"rebootRequired":true,"rebootScheduled":true'
  exit 0
fi

result "$changed" '"rebootRequired":true,"rebootScheduled":false'
die "reboot required to load $DRIVER_PACKAGE (REBOOT=false)" "$REBOOT_REQUIRED_EXIT"
