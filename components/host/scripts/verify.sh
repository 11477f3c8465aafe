# shellcheck shell=bash
# Step verify: the GPUs are visible on the host AND inside a container started the
# way nvkind starts its nodes (a /dev/null volume mount as the device request).
# Parameters: VERIFY_IMAGE, EXPECTED_GPUS (0 = at least one).
#
# Result contract: the last stdout line is
#   {"step":"verify","changed":false,"driverVersion":"570.172.08",
#    "gpus":[{"index":0,"name":"NVIDIA A10","uuid":"GPU-..."}],"containerGpuCount":1}

# gpu_lines TEXT: the `GPU <n>: <name> (UUID: <uuid>)` lines of `nvidia-smi -L`.
gpu_lines() {
  grep -E '^GPU [0-9]+: .+ \(UUID: [^)]+\)$' <<<"$1" || true
}

host_out="$(nvidia-smi -L 2>&1)" || die "nvidia-smi -L failed on the host: ${host_out:-no output}"
host_gpus="$(gpu_lines "$host_out")"
[ -n "$host_gpus" ] || die "no GPU visible on the host (nvidia-smi -L listed none)"

driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader)" ||
  die "nvidia-smi could not report the driver version"
driver="${driver%%$'\n'*}"

container_out="$(docker run --rm -v /dev/null:/var/run/nvidia-container-devices/all \
  "$VERIFY_IMAGE" nvidia-smi -L 2>&1)" ||
  die "GPU container check failed (is nvidia Docker's default runtime?): ${container_out:-no output}"
container_gpus="$(gpu_lines "$container_out")"
[ -n "$container_gpus" ] || die "no GPU visible inside a container started with $VERIFY_IMAGE"

host_count="$(wc -l <<<"$host_gpus")"
container_count="$(wc -l <<<"$container_gpus")"
if [ "$container_count" -ne "$host_count" ]; then
  die "container sees $container_count GPU(s), host has $host_count"
fi
if [ "$EXPECTED_GPUS" -gt 0 ] && [ "$host_count" -ne "$EXPECTED_GPUS" ]; then
  die "expected $EXPECTED_GPUS GPU(s), found $host_count"
fi

gpus_json=""
while IFS= read -r line; do
  index="${line#GPU }"
  index="${index%%:*}"
  rest="${line#*: }"
  name="${rest% (UUID: *}"
  uuid="${rest##* (UUID: }"
  uuid="${uuid%)}"
  gpus_json+="${gpus_json:+,}{\"index\":$index,\"name\":\"$(json_escape "$name")\",\"uuid\":\"$(json_escape "$uuid")\"}"
done <<<"$host_gpus"

result false "\"driverVersion\":\"$(json_escape "$driver")\",\"gpus\":[$gpus_json],\"containerGpuCount\":$container_count"
