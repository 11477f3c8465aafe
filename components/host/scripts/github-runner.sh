# shellcheck shell=bash
# Step github-runner: the pinned GitHub Actions runner as a systemd service that
# registers itself from a GitHub App (key written by the github-app-key step).
#   * packages the loop needs (jq, openssl, curl), installed only when missing;
#   * system user RUNNER_USER. With JOB_ROOT (opt-in), jobs get root: passwordless sudo
#     AND the docker group (root-equivalent). Without it, neither (an earlier grant is
#     taken back), and the unit adds NoNewPrivileges (no setuid: sudo, su, crontab, at)
#     and a private /tmp: root alone reads the App key and runs the minting (`prepare`);
#   * the App key KEY_FILE must be mode 0600, owned by KEY_OWNER, in a 0700 directory;
#   * the tarball, fetched, SHA-256 verified and extracted into RUNNER_HOME/<version>
#     once (a stamp in STATEDIR records the digest); older versions are removed. The
#     runner's files are root-owned and its directory sticky (1775, group RUNNER_USER):
#     the runner adds its own files (.runner, _work, _diag) but no job can replace
#     run.sh or bin/ for the next job. HOME is the unit's RuntimeDirectory, new per start;
#   * ENV_FILE (0644, no secrets), LOOP_SCRIPT (scripts/github-runner-loop.sh) and the
#     unit, each installed only when its bytes differ. The service is (re)started only
#     when something it runs changed, so a re-run changes nothing.
# No token is minted here: the unit's ExecStartPre mints one per start on the host.
# Parameters: ROOT, GITHUB_URL, GITHUB_API_URL, GITHUB_SCOPE, APP_ID, INSTALLATION_ID,
#   KEY_FILE, RUNNER_URL, RUNNER_SHA256, RUNNER_VERSION, RUNNER_NAME, RUNNER_LABELS
#   (array), RUNNER_GROUP, EPHEMERAL, RUNNER_USER, RUNNER_HOME, JOB_ROOT, SERVICE_NAME,
#   KEY_OWNER, STATEDIR, ENV_FILE, LOOP_SCRIPT, HOST_PACKAGES (array), LOOP_SOURCE_B64 (the loop
#   script in base64: it carries no quoting and no `$` into this script).
#
# Result contract (last stdout line):
#   {"step":"github-runner","changed":true|false,"runnerName":"...","labels":[...],
#    "runnerVersion":"...","ephemeral":true|false,"service":"...","jobRoot":true|false}

changed=false
restart=false
new_runner=false
unit="/etc/systemd/system/$SERVICE_NAME.service"
sudoers="/etc/sudoers.d/$SERVICE_NAME"
runner_dir="$RUNNER_HOME/$RUNNER_VERSION"
stamp="$ROOT$STATEDIR/runner-$RUNNER_VERSION.sha256"
# The stamp names the layout too: a runner extracted before its files were root-owned
# (a stamp of the digest alone) is extracted again.
layout="$RUNNER_SHA256 root-owned"

as_root test -s "$ROOT$KEY_FILE" ||
  die "no GitHub App private key at $KEY_FILE: run the github-app-key step first"
# Only the minting service's user may read the key: jobs run as RUNNER_USER.
key_mode="$(as_root stat -c '%a %U' "$ROOT$KEY_FILE")"
key_dir_mode="$(as_root stat -c '%a %U' "$ROOT$(dirname "$KEY_FILE")")"
if [ "$key_mode" != "600 $KEY_OWNER" ] || [ "$key_dir_mode" != "700 $KEY_OWNER" ]; then
  die "the GitHub App key $KEY_FILE is $key_mode in a directory $key_dir_mode, not 600 and 700 owned by $KEY_OWNER: run the github-app-key step again"
fi

# --- packages the loop script needs ------------------------------------------------
missing=()
for pkg in "${HOST_PACKAGES[@]}"; do
  if [ -z "$(deb_installed_version "$pkg")" ]; then
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt_get update
  apt_get install --no-install-recommends "${missing[@]}"
  changed=true
fi

# --- the runner's user ----------------------------------------------------------------
if ! id -u "$RUNNER_USER" >/dev/null 2>&1; then
  as_root useradd --system --user-group --no-create-home --home-dir "$RUNNER_HOME" \
    --shell /bin/bash "$RUNNER_USER" || die "could not create user $RUNNER_USER"
  changed=true
  restart=true
fi
# The docker group is root on this host (any member can mount / into a container): it
# goes with sudo, both or neither. A service (re)start is what applies a group change.
if members="$(getent group docker)"; then
  members=",${members##*:},"
  if [ "${members#*,"$RUNNER_USER",}" = "$members" ]; then
    if [ "$JOB_ROOT" = true ]; then
      as_root usermod -aG docker "$RUNNER_USER" || die "could not add $RUNNER_USER to group docker"
      changed=true
      restart=true
    fi
  elif [ "$JOB_ROOT" != true ]; then
    as_root gpasswd -d "$RUNNER_USER" docker >/dev/null ||
      die "could not remove $RUNNER_USER from group docker"
    log "removed $RUNNER_USER from group docker (jobRoot is off)"
    changed=true
    restart=true
  fi
fi
if [ ! -d "$ROOT$RUNNER_HOME" ]; then
  as_root install -d -m 0755 "$ROOT$RUNNER_HOME"
  changed=true
fi

# --- the pinned runner ----------------------------------------------------------------
installed=""
if [ -f "$stamp" ]; then
  read -r installed <"$stamp" || installed=""
fi
if [ "$installed" != "$layout" ] || [ ! -f "$ROOT$runner_dir/run.sh" ]; then
  fetch "$RUNNER_URL" "$GPU_CI_WORKDIR/runner.tar.gz"
  verify_sha256 "$GPU_CI_WORKDIR/runner.tar.gz" "$RUNNER_SHA256" \
    "actions runner $RUNNER_VERSION ($RUNNER_URL)"
  staging="$ROOT$runner_dir.gpu-ci-new"
  as_root rm -rf "$staging"
  as_root install -d -m 0755 "$staging"
  as_root tar -xzf "$GPU_CI_WORKDIR/runner.tar.gz" -C "$staging" ||
    die "could not extract actions runner $RUNNER_VERSION"
  for member in run.sh config.sh; do
    if [ ! -f "$staging/$member" ]; then
      as_root rm -rf "$staging"
      die "actions runner $RUNNER_VERSION tarball has no $member"
    fi
  done
  # Root's files, which no job can change; the directory takes the runner's own files.
  as_root chown -R root:root "$staging"
  as_root chmod -R go-w "$staging"
  as_root chown "root:$RUNNER_USER" "$staging"
  as_root chmod 1775 "$staging"
  as_root rm -rf "$ROOT$runner_dir"
  as_root mv "$staging" "$ROOT$runner_dir"
  # RUNNER_HOME was the runner user's before its files were root-owned.
  as_root chown root:root "$ROOT$RUNNER_HOME"
  as_root chmod 0755 "$ROOT$RUNNER_HOME"
  printf '%s\n' "$layout" >"$GPU_CI_WORKDIR/stamp"
  as_root install -D -m 0644 "$GPU_CI_WORKDIR/stamp" "$stamp"
  log "installed actions runner $RUNNER_VERSION in $runner_dir"
  changed=true
  restart=true
  new_runner=true
fi

# --- sudo for jobs (JOB_ROOT only) ----------------------------------------------------
if [ "$JOB_ROOT" = true ]; then
  printf '%s ALL=(ALL) NOPASSWD:ALL\n' "$RUNNER_USER" >"$GPU_CI_WORKDIR/sudoers"
  visudo -cqf "$GPU_CI_WORKDIR/sudoers" >/dev/null ||
    die "the sudoers rule for $RUNNER_USER does not validate"
  if install_file_if_changed "$GPU_CI_WORKDIR/sudoers" "$ROOT$sudoers" 0440; then
    changed=true
  fi
elif [ -f "$ROOT$sudoers" ]; then
  as_root rm -f "$ROOT$sudoers"
  changed=true
fi

# --- the loop's parameters, the loop, the unit ----------------------------------------
labels_csv="$(
  IFS=,
  printf '%s' "${RUNNER_LABELS[*]}"
)"
{
  printf '# gpu-ci github-runner: parameters of %s (no secrets).\n' "$LOOP_SCRIPT"
  printf 'GITHUB_URL=%q\n' "$GITHUB_URL"
  printf 'GITHUB_API_URL=%q\n' "$GITHUB_API_URL"
  printf 'GITHUB_SCOPE=%q\n' "$GITHUB_SCOPE"
  printf 'APP_ID=%q\n' "$APP_ID"
  printf 'INSTALLATION_ID=%q\n' "$INSTALLATION_ID"
  printf 'KEY_FILE=%q\n' "$KEY_FILE"
  printf 'RUNNER_NAME=%q\n' "$RUNNER_NAME"
  printf 'RUNNER_GROUP=%q\n' "$RUNNER_GROUP"
  printf 'EPHEMERAL=%q\n' "$EPHEMERAL"
  printf 'RUNNER_USER=%q\n' "$RUNNER_USER"
  printf 'STATEDIR=%q\n' "$STATEDIR"
  printf 'RETRY_ATTEMPTS=%q\n' "$RETRY_ATTEMPTS"
  printf 'RETRY_BASE_SECONDS=%q\n' "$RETRY_BASE_SECONDS"
  printf 'RUNNER_LABELS=%q\n' "$labels_csv"
  printf 'RUNNER_DIR=%q\n' "$runner_dir"
  printf 'RUNTIME_DIR=%q\n' "/run/$SERVICE_NAME"
} >"$GPU_CI_WORKDIR/env"
if install_file_if_changed "$GPU_CI_WORKDIR/env" "$ROOT$ENV_FILE" 0644; then
  changed=true
  restart=true
fi

printf '%s' "$LOOP_SOURCE_B64" | base64 -d >"$GPU_CI_WORKDIR/loop" ||
  die "LOOP_SOURCE_B64 is not valid base64"
if install_file_if_changed "$GPU_CI_WORKDIR/loop" "$ROOT$LOOP_SCRIPT" 0755; then
  changed=true
  restart=true
fi

if [ "$EPHEMERAL" = true ]; then
  kind="ephemeral: one job per start"
else
  kind="persistent"
fi
if [ "$JOB_ROOT" = true ]; then
  kind+=", jobs get root"
  # sudo is setuid: NoNewPrivileges would stop it; Docker bind mounts see the host's /tmp.
  confinement="# jobRoot: jobs get root (sudo and the docker group); no confinement here."
else
  confinement="# No root for jobs: no setuid (sudo, su, crontab, at), a /tmp of their own.
NoNewPrivileges=yes
PrivateTmp=yes"
fi
cat >"$GPU_CI_WORKDIR/unit" <<EOF
# gpu-ci github-runner: do not edit, the github-runner step rewrites this file.
[Unit]
Description=gpu-ci GitHub Actions runner $RUNNER_NAME ($kind)
Wants=network-online.target
After=network-online.target docker.service
StartLimitIntervalSec=0

[Service]
Type=simple
User=$RUNNER_USER
WorkingDirectory=$runner_dir
RuntimeDirectory=$SERVICE_NAME
RuntimeDirectoryMode=0700
ExecStartPre=+$LOOP_SCRIPT prepare $ENV_FILE
ExecStart=$LOOP_SCRIPT run $ENV_FILE
ExecStopPost=-+$LOOP_SCRIPT cleanup $ENV_FILE
# run.sh passes SIGTERM on to the listener (and so to a running job) only with this set;
# without it a stop or restart would kill the wrapper and orphan the runner.
Environment=RUNNER_MANUALLY_TRAP_SIG=1
# A home new per start (the RuntimeDirectory, removed at stop): nothing a job leaves in
# it reaches the next job.
Environment=HOME=/run/$SERVICE_NAME
$confinement
Restart=always
RestartSec=10
# mixed: SIGTERM to run.sh alone (it stops the job gracefully), then SIGKILL to every
# process left in the unit's cgroup: no process of a job outlives it to read the next
# job's just-in-time config (systemd.kill(5), KillMode=).
KillMode=mixed
KillSignal=SIGTERM
TimeoutStopSec=5min

[Install]
WantedBy=multi-user.target
EOF
if install_file_if_changed "$GPU_CI_WORKDIR/unit" "$ROOT$unit" 0644; then
  as_root systemctl daemon-reload
  changed=true
  restart=true
fi

if ! systemctl is-enabled --quiet "$SERVICE_NAME"; then
  as_root systemctl enable "$SERVICE_NAME" || die "could not enable $SERVICE_NAME.service"
  changed=true
  restart=true
fi
if [ "$restart" = true ]; then
  as_root systemctl restart "$SERVICE_NAME" ||
    die "$SERVICE_NAME.service did not start (see journalctl -u $SERVICE_NAME)"
  log "started $SERVICE_NAME.service"
fi

# --- older runner versions ------------------------------------------------------------
if [ "$new_runner" = true ]; then
  for dir in "$ROOT$RUNNER_HOME"/*; do
    version="${dir##*/}"
    if [ -d "$dir" ] && [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] &&
      [ "$version" != "$RUNNER_VERSION" ]; then
      as_root rm -rf "$dir" "$ROOT$STATEDIR/runner-$version.sha256"
      log "removed actions runner $version"
    fi
  done
fi

labels_json=""
for label in "${RUNNER_LABELS[@]}"; do
  labels_json+="${labels_json:+,}\"$(json_escape "$label")\""
done
result "$changed" "$(printf '"runnerName":"%s","labels":[%s],"runnerVersion":"%s","ephemeral":%s,"service":"%s","jobRoot":%s' \
  "$(json_escape "$RUNNER_NAME")" "$labels_json" "$RUNNER_VERSION" "$EPHEMERAL" "$SERVICE_NAME" \
  "$JOB_ROOT")"
