#!/usr/bin/env bash
# The `command` input is neither `up` nor `destroy`.
GPU_CI_STEP="command"
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
die "input command must be up or destroy, not '${INPUT_COMMAND:-}'"
