# shellcheck shell=bash
# Step cloud-init: on a VM this stack created, wait until cloud-init's first boot has
# finished (disk grown, users and files written) before any other step touches apt.
# No parameters beyond the common ones.
#
# `cloud-init status --wait` exits 0 when done, 2 when done with recoverable errors
# (degraded: reported, not fatal) and 1 on a fatal error. A host without cloud-init
# (a custom image) has nothing to wait for.
#
# Result contract (last stdout line):
#   {"step":"cloud-init","changed":false,"status":"done|degraded|absent"}

if ! command -v cloud-init >/dev/null 2>&1; then
  log "cloud-init is not installed, nothing to wait for"
  result false '"status":"absent"'
  exit 0
fi

rc=0
out="$(as_root cloud-init status --wait --long 2>&1)" || rc=$?
case "$rc" in
  0)
    log "cloud-init finished"
    result false '"status":"done"'
    ;;
  2)
    log "cloud-init finished with recoverable errors (degraded):"
    printf '%s\n' "$out" | tail -n 20 >&2
    result false '"status":"degraded"'
    ;;
  *)
    printf '%s\n' "$out" | tail -n 20 >&2
    die "cloud-init failed on first boot (status exit $rc); see /var/log/cloud-init-output.log on the host"
    ;;
esac
