# shellcheck shell=bash
# Step authorized-keys: make the block gpu-ci manages in ~USER/.ssh/authorized_keys hold
# exactly KEYS, and no other line hold a key gpu-ci manages. Changing an OCI instance's
# `ssh_authorized_keys` metadata replaces the VM, so gpu-ci leaves the metadata as it was
# at creation and delivers the configured keys with this step. cloud-init writes the
# metadata's keys into the same file at first boot, outside the block: a plain key line
# ("TYPE BLOB [comment]", no options) outside the block whose key is in KEYS or was in the
# block before is gpu-ci's, so it is dropped there (kept once, in the block, while it is in
# KEYS): a key taken out of KEYS is revoked. Every other line outside the block is kept as
# it is (a key added by hand, a line with options; a last line without a newline gets
# one); a file without the block gets it appended.
#   # BEGIN gpu-ci managed keys
#   ssh-ed25519 AAAA... alice@example.org
#   # END gpu-ci managed keys
# USER must be a local account (its home is read from ROOT/etc/passwd). ~/.ssh is created
# mode 0700 when missing; the file is written atomically (a temporary file in ~/.ssh,
# then mv), mode 0600, owned by USER, and only when its bytes change. A result without
# any key line is refused, as are unbalanced markers and a symlinked ~/.ssh or file.
# Runs as root, or through sudo.
# Parameters: USER, KEYS (array of OpenSSH public key lines), ROOT.
#
# Result contract (last stdout line):
#   {"step":"authorized-keys","changed":true|false,"user":"ubuntu","keys":2}

readonly begin_marker='# BEGIN gpu-ci managed keys'
readonly end_marker='# END gpu-ci managed keys'

for key in "${KEYS[@]}"; do
  case "$key" in
    *$'\n'* | *$'\r'* | '' | '#'*) die "KEYS holds an entry that is not one public key line" ;;
  esac
done

home=""
while IFS=: read -r name _ uid gid _ dir _; do
  if [ "$name" = "$USER" ]; then
    home="$dir"
    break
  fi
done <"$ROOT/etc/passwd"
[ -n "$home" ] || die "user $USER is not in /etc/passwd (keys are managed for local users only)"
[[ $home == /* ]] || die "user $USER's home '$home' in /etc/passwd is not an absolute path"
[[ $uid =~ ^[0-9]+$ && $gid =~ ^[0-9]+$ ]] || die "user $USER's entry in /etc/passwd has no uid/gid"
as_root test -d "$ROOT$home" || die "the home directory $home of user $USER does not exist"

readonly sshdir="$ROOT${home%/}/.ssh"
readonly file="$sshdir/authorized_keys"
readonly shown="${home%/}/.ssh/authorized_keys"
for path in "$sshdir" "$file"; do
  if as_root test -L "$path"; then
    die "${path#"$ROOT"} is a symbolic link; refusing to write through it"
  fi
done

current="$GPU_CI_WORKDIR/current"
desired="$GPU_CI_WORKDIR/authorized_keys"
: >"$current"
exists=false
if as_root test -e "$file"; then
  as_root test -f "$file" || die "$shown exists but is not a regular file"
  as_root cat "$file" >"$current" || die "cannot read $shown"
  exists=true
fi

# The key of a plain key line ("TYPE BLOB"), or nothing for any other line.
key_of() {
  local type="" blob="" rest=""
  read -r type blob rest <<<"$1" || true
  case "$type" in
    ssh-* | ecdsa-sha2-* | sk-*) [ -z "$blob" ] || printf '%s %s' "$type" "$blob" ;;
  esac
}
# The keys gpu-ci manages: KEYS, and those of the block as it was.
declare -A managed=()
for key in "${KEYS[@]}"; do
  id="$(key_of "$key")"
  [ -z "$id" ] || managed["$id"]=1
done
inside=false
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    "$begin_marker") inside=true ;;
    "$end_marker") inside=false ;;
    *)
      if [ "$inside" = true ]; then
        id="$(key_of "$line")"
        [ -z "$id" ] || managed["$id"]=1
      fi
      ;;
  esac
done <"$current"

# The file with the block's content replaced by KEYS (appended when there is no block).
block() {
  printf '%s\n' "$begin_marker" "${KEYS[@]}" "$end_marker"
}
inside=false
blocks=0
adopted=0
{
  while IFS= read -r line || [ -n "$line" ]; do
    if [ "$inside" = true ]; then
      if [ "$line" = "$end_marker" ]; then
        inside=false
      elif [ "$line" = "$begin_marker" ]; then
        die "$shown has '$begin_marker' twice before '$end_marker'; fix the file by hand"
      fi
      continue
    fi
    if [ "$line" = "$begin_marker" ]; then
      inside=true
      blocks=$((blocks + 1))
      if [ "$blocks" -eq 1 ]; then
        block
      fi
      continue
    fi
    if [ "$line" = "$end_marker" ]; then
      die "$shown has '$end_marker' without '$begin_marker' before it; fix the file by hand"
    fi
    id="$(key_of "$line")"
    if [ -n "$id" ] && [ -n "${managed[$id]:-}" ]; then
      adopted=$((adopted + 1))
      continue
    fi
    printf '%s\n' "$line"
  done <"$current"
  if [ "$inside" = true ]; then
    die "$shown has '$begin_marker' without '$end_marker'; fix the file by hand"
  fi
  if [ "$blocks" -eq 0 ]; then
    block
  fi
} >"$desired"
if [ "$blocks" -gt 1 ]; then
  log "$shown had $blocks managed blocks; keeping one"
fi
if [ "$adopted" -gt 0 ]; then
  log "$shown: dropped $adopted line(s) outside the block holding a key gpu-ci manages" \
    "(cloud-init's copy of the metadata's keys, or a key taken out of vm.sshAuthorizedKeys)"
fi

key_lines="$({ grep -Ev '^[[:space:]]*(#|$)' "$desired" || true; } | wc -l)"
[ "$key_lines" -gt 0 ] ||
  die "$shown would hold no key at all; refusing to lock user $USER out"

changed=false
if ! as_root test -d "$sshdir"; then
  as_root install -d -m 0700 "$sshdir"
  as_root chown "$uid:$gid" "$sshdir"
  log "created ${sshdir#"$ROOT"} (mode 0700, owner $USER)"
  changed=true
fi
if [ "$exists" = true ] && cmp -s "$desired" "$current"; then
  if [ "$(as_root stat -c '%a %u' "$file")" != "600 $uid" ]; then
    as_root chmod 0600 "$file"
    as_root chown "$uid:$gid" "$file"
    log "reset mode 0600 and owner $USER of $shown"
    changed=true
  fi
else
  new="$(as_root mktemp "$sshdir/.authorized_keys.gpu-ci-XXXXXX")"
  as_root cp "$desired" "$new"
  as_root chmod 0600 "$new"
  as_root chown "$uid:$gid" "$new"
  as_root mv -f "$new" "$file"
  log "wrote ${#KEYS[@]} managed key(s) to $shown"
  changed=true
fi

result "$changed" "\"user\":\"$USER\",\"keys\":${#KEYS[@]}"
