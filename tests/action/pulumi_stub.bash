#!/bin/bash
# A recording stand-in for the Pulumi CLI, shipped to the action inside the tarball the
# tests serve at the pinned URL (so the action downloads, verifies and extracts it as it
# would the real one). It records argv to $SANDBOX/calls.log like tests/host/stub.bash,
# keeps its state under $SANDBOX/state/pulumi/, and acts on fault files there:
#   up-fail       `pulumi up` prints its content and exits 255
#   destroy-fail  `pulumi destroy` likewise
#   outputs.json  what `pulumi stack output --json --show-secrets` prints
#   outputs-public.json  what it prints without --show-secrets (else outputs.json)
set -euo pipefail

state="$SANDBOX/state/pulumi"
mkdir -p "$state"
printf '%s\n' "pulumi${*:+ $*}" >>"$SANDBOX/calls.log"

cwd="$PWD"
args=()
while [ "$#" -gt 0 ]; do
  case "$1" in
    --non-interactive) shift ;;
    --cwd)
      cwd="$2"
      shift 2
      ;;
    *)
      args+=("$1")
      shift
      ;;
  esac
done
set -- "${args[@]}"

# flag NAME: the value of --NAME in the arguments.
flag() {
  local prev="" arg
  for arg in "${args[@]}"; do
    if [ "$prev" = "--$1" ]; then
      printf '%s' "$arg"
      return 0
    fi
    prev="$arg"
  done
  return 1
}

# What every stateful command needs: a file backend and the passphrase file, no token.
check_env() {
  [ -z "${PULUMI_ACCESS_TOKEN:-}" ] || { echo "stub: PULUMI_ACCESS_TOKEN is set" >&2; exit 3; }
  [ -s "${PULUMI_CONFIG_PASSPHRASE_FILE:-/nonexistent}" ] ||
    { echo "stub: no passphrase file" >&2; exit 3; }
  [ -f "$state/backend" ] || { echo "stub: not logged in" >&2; exit 3; }
  printf '%s\n' "PULUMI_HOME=$PULUMI_HOME" "PASSPHRASE_FILE=$PULUMI_CONFIG_PASSPHRASE_FILE" \
    "PATH0=${PATH%%:*}" >"$state/env-$1"
}

stack_dir() {
  local backend
  backend="$(cat "$state/backend")"
  printf '%s/.pulumi/stacks/gpu-ci' "${backend#file://}"
}

case "${1:-} ${2:-}" in
  "version "*)
    echo "v$(cat "$state/version" 2>/dev/null || echo 3.272.0)"
    ;;
  "login "*)
    case "$2" in
      file://*) ;;
      *) echo "stub: only file:// backends here, not $2" >&2 && exit 3 ;;
    esac
    mkdir -p "${2#file://}"
    printf '%s' "$2" >"$state/backend"
    echo "Logged in to stub as runner ($2)"
    ;;
  "plugin install")
    [ "$3" = resource ] && [ -n "$5" ] || { echo "stub: plugin install $*" >&2; exit 3; }
    mkdir -p "$PULUMI_HOME/plugins/resource-$4-v$5"
    ;;
  "stack select")
    check_env select
    name="${!#}"
    if [ -f "$(stack_dir)/$name.json" ]; then
      exit 0
    fi
    if [[ " ${args[*]} " != *" --create "* ]]; then
      echo "error: no stack named '$name' found" >&2
      exit 255
    fi
    mkdir -p "$(stack_dir)"
    echo '{"version": 3}' >"$(stack_dir)/$name.json"
    # As `pulumi stack init` with the passphrase provider: a salt in the stack file.
    printf 'encryptionsalt: v1:c3R1Yg==:v1:stub-salt\n' >>"$cwd/Pulumi.$name.yaml"
    echo "Created stack '$name'"
    ;;
  "up "*)
    check_env up
    name="$(flag stack)"
    n=$(($(cat "$state/up-count" 2>/dev/null || echo 0) + 1))
    echo "$n" >"$state/up-count"
    cp "$cwd/Pulumi.$name.yaml" "$state/up-$n.yaml"
    echo "Updating ($name)"
    if [ -f "$state/up-fail" ]; then
      cat "$state/up-fail"
      exit 255
    fi
    echo "Resources: created"
    ;;
  "stack output")
    check_env output
    # Without --show-secrets, secret values read "[secret]" (pkg/cmd/pulumi/stack/
    # stack_output.go, display.MassageSecrets): outputs-public.json, where a test wrote one.
    if [[ " ${args[*]} " != *" --show-secrets "* ]] && [ -f "$state/outputs-public.json" ]; then
      cat "$state/outputs-public.json"
    else
      cat "$state/outputs.json"
    fi
    ;;
  "state delete")
    check_env state-delete
    if [ -f "$state/state-delete-fail" ]; then
      echo "error: No such resource" >&2
      exit 255
    fi
    ;;
  "destroy "*)
    check_env destroy
    if [ -f "$state/destroy-fail" ]; then
      cat "$state/destroy-fail"
      exit 255
    fi
    rm -f "$(stack_dir)/$(flag stack).json"
    echo "Resources: deleted"
    ;;
  *)
    echo "stub: no behaviour for pulumi $*" >&2
    exit 127
    ;;
esac
