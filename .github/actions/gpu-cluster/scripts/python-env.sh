#!/usr/bin/env bash
# Step python-env: the program's virtualenv, with requirements.txt's pins, at a fixed path
# under the runner's tool cache (restored by actions/cache when its key matches), linked
# as the program's `.venv`, which Pulumi.yaml names as the program's virtualenv.
GPU_CI_STEP=python-env
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_folder
load_env

# The lock on stdin less pulumi-oci's entry: its requirement line and the indented hash and
# `# via` lines under it, up to the next line that starts at the margin.
without_oci() {
  local line skip=false
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
    pulumi-oci==*) skip=true ;;
    [![:space:]]*) skip=false ;;
    esac
    "$skip" || printf '%s\n' "$line"
  done
}

venv="$GPU_CI_VENV"
stamp="$venv/.gpu-ci-key"
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$GPU_CI_PYTHON_KEY" ]; then
  log "virtualenv $venv is current ($GPU_CI_PYTHON_KEY)"
else
  rm -rf "$venv"
  log "creating the virtualenv $venv (requirements.txt without pulumi-oci)"
  "$GPU_CI_BASE_PYTHON" -m venv "$venv" || die "python -m venv $venv failed"
  # The action's stack (capacity none, the local host) never imports pulumi-oci, which is
  # 327 of the lock's 497 MB installed: the lock less that one entry, its lines and hashes
  # otherwise unchanged (pip still checks every file), about 31 s instead of 70 s.
  without_oci <"$GPU_CI_PROGRAM/requirements.txt" >"$venv/requirements.txt" ||
    die "cannot write $venv/requirements.txt"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    -r "$venv/requirements.txt" ||
    die "pip install -r requirements.txt failed (its output is above)"
  printf '%s' "$GPU_CI_PYTHON_KEY" >"$stamp"
fi

link="$GPU_CI_PROGRAM/.venv"
if [ -L "$link" ] || [ ! -e "$link" ]; then
  rm -f "$link"
  ln -s "$venv" "$link"
elif [ ! "$link" -ef "$venv" ]; then
  die "$link exists and is not the action's virtualenv; remove it (the action links its own)"
fi
