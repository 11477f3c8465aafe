#!/usr/bin/env bash
# gpu-ci GitHub runner loop: installed by the github-runner step and run by its systemd
# unit, one job per service start when ephemeral (systemd's Restart=always starts the
# next). Parameters come from ENV_FILE (written by the step, mode 0644, no secrets).
#
# Usage: github-runner-loop.sh MODE ENV_FILE
#   prepare     ExecStartPre=+ (root): for an ephemeral runner, delete RUNNER_DIR/_work
#               (what the last job left: tool cache, cached actions, checkouts), then
#               mint a GitHub App JWT from KEY_FILE, exchange it
#               for an installation token, then either generate a just-in-time runner
#               config (ephemeral; the runner id goes to STATEDIR/current-runner-id) or,
#               for a persistent runner not configured yet, a registration token. The
#               result is handed to `run` in RUNTIME_DIR (0600, owned by RUNNER_USER).
#   run         ExecStart (RUNNER_USER): take the handoff, delete it, and exec run.sh with
#               it in the environment (ACTIONS_RUNNER_INPUT_JITCONFIG / _TOKEN), never argv.
#   cleanup     ExecStopPost=-+ (root): delete the recorded ephemeral runner (gone already,
#               404, is the normal case after a job) and any leftover handoff.
#   deregister  github-runner-remove (root): delete the recorded runner and, for a
#               persistent runner, the one in RUNNER_DIR/.runner. 404 counts as done.
#
# Secrets (the App key, JWT, installation token, JIT config, registration token) live in
# variables and in 0600 files under a private temporary directory or RUNTIME_DIR; they
# are never printed, logged or passed on a command line (curl reads the Authorization
# header from a file). Network errors, 429 and 5xx are retried with bounded backoff;
# 401/403/404 fail with a message naming the App, installation or scope. GPU_CI_ROOT
# (empty on a host) prefixes every path, as ROOT does for the steps.

set -Eeuo pipefail
umask 077

readonly MODE="${1:-}"
readonly ENV_FILE="${2:-/etc/gpu-ci/github-runner.env}"
R="${GPU_CI_ROOT:-}"
readonly R

trap 'on_error "$?" "$BASH_COMMAND"' ERR

on_error() {
  printf 'gpu-ci github-runner-loop %s: command failed (exit %s): %s\n' "$MODE" "$1" "$2" >&2
  exit "$1"
}

die() {
  printf 'gpu-ci github-runner-loop %s: %s\n' "$MODE" "$1" >&2
  exit 1
}

log() {
  printf 'gpu-ci github-runner-loop %s: %s\n' "$MODE" "$*" >&2
}

case "$MODE" in
  prepare | run | cleanup | deregister) ;;
  *) die "usage: github-runner-loop.sh prepare|run|cleanup|deregister ENV_FILE" ;;
esac

[ -r "$R$ENV_FILE" ] || die "cannot read $R$ENV_FILE (written by the github-runner step)"
# shellcheck source=/dev/null
. "$R$ENV_FILE"
for var in GITHUB_URL GITHUB_API_URL GITHUB_SCOPE APP_ID INSTALLATION_ID KEY_FILE \
  RUNNER_NAME RUNNER_LABELS RUNNER_GROUP EPHEMERAL RUNNER_USER RUNNER_DIR STATEDIR \
  RUNTIME_DIR RETRY_ATTEMPTS RETRY_BASE_SECONDS; do
  [ -n "${!var:-}" ] || die "$R$ENV_FILE does not set $var"
done

readonly ID_FILE="$R$STATEDIR/current-runner-id"
readonly JIT_HANDOFF="$R$RUNTIME_DIR/jitconfig"
readonly TOKEN_HANDOFF="$R$RUNTIME_DIR/registration-token"
WORK=""
JWT=""
INSTALLATION_TOKEN=""
STATUS=""
GROUP_ID=""

make_workdir() {
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
}

backoff() {
  local delay=$((RETRY_BASE_SECONDS * (1 << ($1 - 1))))
  if [ "$delay" -gt 0 ]; then
    sleep "$delay"
  fi
}

b64url() {
  base64 -w0 | tr '+/' '-_' | tr -d '='
}

# mint_jwt: JWT (RS256) for GitHub App APP_ID, valid from 60 s ago for 10 minutes.
mint_jwt() {
  local now header payload signature
  [ -r "$R$KEY_FILE" ] ||
    die "cannot read the GitHub App private key $KEY_FILE (the github-app-key step writes it)"
  now="$(date +%s)"
  header="$(printf '{"alg":"RS256","typ":"JWT"}' | b64url)"
  payload="$(printf '{"iat":%d,"exp":%d,"iss":"%d"}' $((now - 60)) $((now + 540)) "$APP_ID" |
    b64url)"
  signature="$(printf '%s.%s' "$header" "$payload" |
    openssl dgst -sha256 -sign "$R$KEY_FILE" -binary | b64url)" ||
    die "could not sign a JWT for GitHub App $APP_ID with $KEY_FILE (openssl failed)"
  [ -n "$signature" ] || die "could not sign a JWT for GitHub App $APP_ID with $KEY_FILE"
  JWT="$header.$payload.$signature"
}

# api METHOD PATH TOKEN [BODY_FILE]: call the GitHub API as TOKEN. The body lands in
# $WORK/response and the HTTP status in STATUS. The token reaches curl in a header file.
api() {
  local method="$1" path="$2" token="$3" body="${4:-}" attempt=1 rc code what
  local url="$GITHUB_API_URL/$path"
  local -a args=(-sS --proto '=https' --connect-timeout 20 --max-time 60 -X "$method"
    -H "@$WORK/auth" -H 'Accept: application/vnd.github+json'
    -H 'X-GitHub-Api-Version: 2022-11-28' -o "$WORK/response" -w '%{http_code}')
  if [ -n "$body" ]; then
    args+=(-H 'Content-Type: application/json' --data-binary "@$body")
  fi
  printf 'Authorization: Bearer %s\n' "$token" >"$WORK/auth"
  while :; do
    rc=0
    code="$(curl "${args[@]}" "$url")" || rc=$?
    if [ "$rc" -eq 0 ]; then
      case "$code" in
        429 | 5??) ;;
        *) break ;;
      esac
      what="HTTP $code"
    else
      case "$rc" in
        5 | 6 | 7 | 18 | 28 | 35 | 52 | 55 | 56) ;;
        *)
          rm -f "$WORK/auth"
          die "$method $url failed (curl exit $rc)"
          ;;
      esac
      what="network error (curl exit $rc)"
    fi
    if [ "$attempt" -ge "$RETRY_ATTEMPTS" ]; then
      rm -f "$WORK/auth"
      die "$method $url failed after $attempt attempts ($what)"
    fi
    log "$method $url: $what, retry $attempt/$RETRY_ATTEMPTS"
    backoff "$attempt"
    attempt=$((attempt + 1))
  done
  rm -f "$WORK/auth"
  STATUS="$code"
}

# api_message: GitHub's error message from the response (never read from a 2xx body).
api_message() {
  local message
  message="$(jq -r '.message? // empty' "$WORK/response" 2>/dev/null)" || message=""
  printf '%s' "${message:0:200}"
}

# expect_ok WHAT WHO: fail unless STATUS is 2xx; WHO names the credential or scope.
expect_ok() {
  case "$STATUS" in
    2??) return 0 ;;
    401) die "$1: 401 Unauthorized: $2 was rejected (check app id $APP_ID, the key in $KEY_FILE and the host clock)" ;;
    403) die "$1: 403 Forbidden: $2 lacks permission ($(api_message))" ;;
    404) die "$1: 404 Not Found: $2 ($(api_message))" ;;
    *) die "$1: HTTP $STATUS ($(api_message))" ;;
  esac
}

# json_field FILTER: a required string/number from the response, never printed on failure.
json_field() {
  jq -er "$1" "$WORK/response" 2>/dev/null
}

mint_installation_token() {
  [ -n "$INSTALLATION_TOKEN" ] && return 0
  mint_jwt
  api POST "app/installations/$INSTALLATION_ID/access_tokens" "$JWT"
  JWT=""
  case "$STATUS" in
    404) die "installation token: 404 Not Found: GitHub App $APP_ID has no installation $INSTALLATION_ID" ;;
  esac
  expect_ok "installation token" "the JWT of GitHub App $APP_ID"
  INSTALLATION_TOKEN="$(json_field .token)" ||
    die "installation token: the access_tokens response of installation $INSTALLATION_ID has no token"
  rm -f "$WORK/response"
}

scope_who() {
  printf 'installation %s of GitHub App %s on %s' "$INSTALLATION_ID" "$APP_ID" "$GITHUB_SCOPE"
}

# runner_group_id: the id of RUNNER_GROUP (repositories only have Default, id 1).
runner_group_id() {
  local id
  case "$GITHUB_SCOPE" in
    repos/*)
      [ "$RUNNER_GROUP" = Default ] ||
        die "repository runners can only join the Default runner group, not $RUNNER_GROUP"
      GROUP_ID=1
      return 0
      ;;
  esac
  api GET "$GITHUB_SCOPE/actions/runner-groups?per_page=100" "$INSTALLATION_TOKEN"
  expect_ok "runner groups" "$(scope_who)"
  id="$(jq -r --arg name "$RUNNER_GROUP" \
    'first(.runner_groups[]? | select(.name == $name) | .id) // empty' "$WORK/response")"
  [ -n "$id" ] || die "runner group $RUNNER_GROUP does not exist in $GITHUB_SCOPE"
  GROUP_ID="$id"
}

# handoff FILE VALUE: VALUE for the `run` phase, readable by RUNNER_USER only.
handoff() {
  mkdir -p "$(dirname "$1")"
  rm -f "$1"
  printf '%s' "$2" >"$1"
  chmod 0600 "$1"
  chown "$RUNNER_USER" "$1"
}

# delete_runner ID: deregister runner ID; true when it existed, 404 counts as gone.
delete_runner() {
  mint_installation_token
  api DELETE "$GITHUB_SCOPE/actions/runners/$1" "$INSTALLATION_TOKEN"
  if [ "$STATUS" = 404 ]; then
    log "runner $1 is already gone from $GITHUB_SCOPE"
    return 0
  fi
  expect_ok "delete runner $1" "$(scope_who)"
  log "deregistered runner $1 from $GITHUB_SCOPE"
}

# delete_recorded_runner: the ephemeral runner this host registered last, if any.
delete_recorded_runner() {
  local id
  [ -f "$ID_FILE" ] || return 0
  read -r id <"$ID_FILE" || id=""
  if [[ "$id" =~ ^[0-9]+$ ]]; then
    delete_runner "$id"
  else
    log "ignoring malformed runner id in $ID_FILE"
  fi
  rm -f "$ID_FILE"
}

prepare_ephemeral() {
  local suffix name runner_id jit
  delete_recorded_runner
  mint_installation_token
  runner_group_id
  suffix="$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')"
  name="$RUNNER_NAME-$suffix"
  jq -n --arg name "$name" --argjson group "$GROUP_ID" --arg labels "$RUNNER_LABELS" \
    '{name: $name, runner_group_id: $group, labels: ($labels | split(",")),
      work_folder: "_work"}' >"$WORK/jit-request.json"
  api POST "$GITHUB_SCOPE/actions/runners/generate-jitconfig" "$INSTALLATION_TOKEN" \
    "$WORK/jit-request.json"
  expect_ok "generate-jitconfig for $name" "$(scope_who)"
  runner_id="$(json_field .runner.id)" || die "generate-jitconfig: no runner.id in the response"
  jit="$(json_field .encoded_jit_config)" ||
    die "generate-jitconfig: no encoded_jit_config in the response"
  rm -f "$WORK/response"
  mkdir -p "$R$STATEDIR"
  printf '%s\n' "$runner_id" >"$ID_FILE.new"
  chmod 0644 "$ID_FILE.new"
  mv -f "$ID_FILE.new" "$ID_FILE"
  handoff "$JIT_HANDOFF" "$jit"
  log "registered ephemeral runner $name (id $runner_id) in $GITHUB_SCOPE, group $RUNNER_GROUP, labels $RUNNER_LABELS"
}

prepare_persistent() {
  local token
  if [ -f "$R$RUNNER_DIR/.runner" ]; then
    log "runner $RUNNER_NAME is configured already"
    return 0
  fi
  mint_installation_token
  api POST "$GITHUB_SCOPE/actions/runners/registration-token" "$INSTALLATION_TOKEN"
  expect_ok "registration token" "$(scope_who)"
  token="$(json_field .token)" || die "registration token: no token in the response"
  rm -f "$WORK/response"
  handoff "$TOKEN_HANDOFF" "$token"
  log "minted a registration token for runner $RUNNER_NAME in $GITHUB_SCOPE"
}

run_runner() {
  local secret
  cd "$R$RUNNER_DIR" || die "runner directory $R$RUNNER_DIR is missing"
  if [ "$EPHEMERAL" = true ]; then
    [ -s "$JIT_HANDOFF" ] || die "no just-in-time config in $JIT_HANDOFF (prepare did not run)"
    secret="$(<"$JIT_HANDOFF")"
    rm -f "$JIT_HANDOFF"
    export ACTIONS_RUNNER_INPUT_JITCONFIG="$secret"
    exec ./run.sh
  fi
  if [ -s "$TOKEN_HANDOFF" ]; then
    secret="$(<"$TOKEN_HANDOFF")"
    rm -f "$TOKEN_HANDOFF"
    ACTIONS_RUNNER_INPUT_TOKEN="$secret" ./config.sh --unattended --replace \
      --url "$GITHUB_URL" --name "$RUNNER_NAME" --labels "$RUNNER_LABELS" \
      --runnergroup "$RUNNER_GROUP" --work _work ||
      die "config.sh could not register runner $RUNNER_NAME with $GITHUB_URL"
    secret=""
  fi
  [ -f .runner ] || die "runner $RUNNER_NAME is not configured and no registration token was handed over"
  exec ./run.sh
}

# persistent_runner_id: agentId from RUNNER_DIR/.runner (written with a BOM: no jq).
persistent_runner_id() {
  local line
  [ -f "$R$RUNNER_DIR/.runner" ] || return 0
  line="$(grep -o '"agentId": *[0-9]*' "$R$RUNNER_DIR/.runner")" || return 0
  printf '%s' "${line##*[!0-9]}"
}

case "$MODE" in
  prepare)
    make_workdir
    rm -f "$JIT_HANDOFF" "$TOKEN_HANDOFF"
    if [ "$EPHEMERAL" = true ]; then
      # No process of the last job is left (KillMode=mixed): its files go too, so a
      # poisoned tool cache or action cache never runs in the next job.
      rm -rf "$R$RUNNER_DIR/_work"
      prepare_ephemeral
    else
      prepare_persistent
    fi
    ;;
  run)
    run_runner
    ;;
  cleanup)
    rm -f "$JIT_HANDOFF" "$TOKEN_HANDOFF"
    make_workdir
    delete_recorded_runner
    ;;
  deregister)
    rm -f "$JIT_HANDOFF" "$TOKEN_HANDOFF"
    make_workdir
    delete_recorded_runner
    persistent_id="$(persistent_runner_id)"
    if [ -n "$persistent_id" ]; then
      delete_runner "$persistent_id"
      rm -f "$R$RUNNER_DIR/.runner" "$R$RUNNER_DIR/.credentials" "$R$RUNNER_DIR/.credentials_rsaparams"
    fi
    ;;
esac
