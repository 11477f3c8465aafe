# shellcheck shell=bash
# Step inotify: kind nodes run many kubelets/containers watching files; the Ubuntu
# defaults exhaust inotify instances. Persist in sysctl.d and apply live values.
# Parameters: ROOT, SYSCTL_FILE, MAX_USER_WATCHES, MAX_USER_INSTANCES.

changed=false
printf '# Managed by gpu-ci (step inotify).\nfs.inotify.max_user_watches = %s\nfs.inotify.max_user_instances = %s\n' \
  "$MAX_USER_WATCHES" "$MAX_USER_INSTANCES" >"$GPU_CI_WORKDIR/sysctl.conf"
if install_file_if_changed "$GPU_CI_WORKDIR/sysctl.conf" "$ROOT$SYSCTL_FILE" 0644; then
  changed=true
fi

apply() {
  local key="$1" want="$2" have
  have="$(sysctl -n "$key")"
  if [ "$have" != "$want" ]; then
    as_root sysctl -q -w "$key=$want" >/dev/null
    changed=true
  fi
}
apply fs.inotify.max_user_watches "$MAX_USER_WATCHES"
apply fs.inotify.max_user_instances "$MAX_USER_INSTANCES"

result "$changed"
