#!/usr/bin/env bash
# Step configure: configure.py (the inputs as a stack file, planned offline) on the
# program's virtualenv.
GPU_CI_STEP=configure
# shellcheck source=SCRIPTDIR/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
work_folder
load_env
"$GPU_CI_VENV/bin/python" "$(dirname "${BASH_SOURCE[0]}")/configure.py" || exit "$?"
