# shellcheck shell=bash
# Step github-app-key: the GitHub App private key, read from this step's STDIN (the
# rendered script itself runs as `bash -c <script>`), so the key is never in a script,
# in Pulumi state, in a log or on a command line. It is written atomically to KEY_FILE,
# mode 0600, owned by KEY_OWNER, only when the bytes differ; its directory is created
# mode 0700 when missing. Input that is empty or not one unencrypted PEM private key is
# refused without being echoed.
# Parameters: ROOT, KEY_FILE, KEY_OWNER.
#
# Result contract (last stdout line):
#   {"step":"github-app-key","changed":true|false}

umask 077
key="$GPU_CI_WORKDIR/key.pem"

# pem_private_key FILE: exactly one `RSA PRIVATE KEY` (PKCS#1, as GitHub issues them) or
# `PRIVATE KEY` (PKCS#8) block of base64 lines, blank lines around it allowed.
pem_private_key() {
  local line kind="" state=begin lines=0
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    case "$state" in
      begin)
        if [ -z "$line" ]; then
          continue
        fi
        case "$line" in
          "-----BEGIN RSA PRIVATE KEY-----") kind="RSA PRIVATE KEY" ;;
          "-----BEGIN PRIVATE KEY-----") kind="PRIVATE KEY" ;;
          *) return 1 ;;
        esac
        state=body
        ;;
      body)
        if [ "$line" = "-----END $kind-----" ]; then
          state=end
        elif [[ "$line" =~ ^[A-Za-z0-9+/=]+$ ]]; then
          lines=$((lines + 1))
        else
          return 1
        fi
        ;;
      end)
        if [ -n "$line" ]; then
          return 1
        fi
        ;;
    esac
  done <"$1"
  [ "$state" = end ] && [ "$lines" -gt 0 ]
}

cat >"$key" || die "could not read the GitHub App private key from stdin"
if [ ! -s "$key" ]; then
  die "no GitHub App private key on stdin (the input was empty)"
fi
if ! pem_private_key "$key"; then
  rm -f "$key"
  die "stdin is not an unencrypted PEM private key (-----BEGIN RSA PRIVATE KEY----- or -----BEGIN PRIVATE KEY-----); the input is not shown"
fi

changed=false
dir="$(dirname "$KEY_FILE")"
if [ ! -d "$ROOT$dir" ]; then
  as_root install -d -m 0700 "$ROOT$dir"
  as_root chown "$KEY_OWNER:" "$ROOT$dir"
  changed=true
fi
if as_root test -f "$ROOT$KEY_FILE" && as_root cmp -s "$key" "$ROOT$KEY_FILE"; then
  if [ "$(as_root stat -c '%a %U' "$ROOT$KEY_FILE")" != "600 $KEY_OWNER" ]; then
    as_root chmod 0600 "$ROOT$KEY_FILE"
    as_root chown "$KEY_OWNER:" "$ROOT$KEY_FILE"
    log "reset mode 0600 and owner $KEY_OWNER of $KEY_FILE"
    changed=true
  fi
else
  as_root install -m 0600 "$key" "$ROOT$KEY_FILE.gpu-ci-new"
  as_root chown "$KEY_OWNER:" "$ROOT$KEY_FILE.gpu-ci-new"
  as_root mv -f "$ROOT$KEY_FILE.gpu-ci-new" "$ROOT$KEY_FILE"
  log "wrote the GitHub App private key to $KEY_FILE"
  changed=true
fi
rm -f "$key"

result "$changed"
