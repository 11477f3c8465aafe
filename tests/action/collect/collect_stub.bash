#!/bin/bash
# Stand-ins for what the collect step asks of the host and the cluster (kubectl, kind,
# helm, nvidia-smi, docker, journalctl, dmesg), symlinked under each name by
# tests/action/collect/collect_sandbox.py. Each records its argv to $SANDBOX/calls.log, as
# tests/components/host/stub.bash does, and answers from $SANDBOX/state/collect/:
#   answers/KEY    printed for the call whose `NAME ARGS` is KEY (non-alphanumerics as _)
#   NAME.fail      printed to stderr, exit 1 (a source that fails)
#   NAME.hang      the call never ends (a source the collect must time out)
#   kind-logs/     what `kind export logs DIR` writes into DIR
# A call with no answer fails, naming itself.
set -euo pipefail

name="$(basename "$0")"
state="$SANDBOX/state/collect"
printf '%s\n' "$name${*:+ $*}" >>"$SANDBOX/calls.log"

if [ -f "$state/$name.hang" ]; then
  exec tail -f /dev/null
fi
if [ -f "$state/$name.fail" ]; then
  cat "$state/$name.fail" >&2
  exit 1
fi
if [ "$name" = kind ] && [ "${1:-} ${2:-}" = "export logs" ]; then
  mkdir -p "$3"
  if [ -d "$state/kind-logs" ]; then
    cp -R "$state/kind-logs/." "$3/"
  fi
  echo "$3"
  exit 0
fi
key="$(printf '%s' "$name${*:+ $*}" | tr -c 'A-Za-z0-9.=-' '_')"
if [ -f "$state/answers/$key" ]; then
  cat "$state/answers/$key"
  exit 0
fi
echo "stub: no answer for $name $*" >&2
exit 1
