#!/usr/bin/env bash
# The GPU check of issue #4: train on burn-wgpu for real, on a lent GPU machine (see
# ../.library/device/README.md beside the checkout). Two halves, because that machine reaches
# no registry and its time is short:
#
#   bash benches/gpu-check.sh prepare   # here: builds train with --features wgpu and puts it,
#                                       # the Vulkan loader packages and the piece sets in .gpu/
#   bash benches/gpu-check.sh run       # there: what the device tool runs, with carry [".gpu"]
#
# `run` trains the shipped architecture from scratch on the GPU for $GPU_STEPS steps (default
# 2000, batch 128, the full default synth mix on the machine's CPUs), then validates on sets
# (a) and (b); the log, the metrics and the card land in $OUT (the device tool brings them
# back). Compare `crops/s` and the card with a CPU run of the same command (BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.gpu

case "${1:-}" in
prepare)
  grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
  rm -rf "$dir" && mkdir -p "$dir/gl" "$dir/pieces"
  cargo build --release --features wgpu --bin train
  # ~80 MB with the GPU stack; compressed, it fits the 64 MiB the device tool carries.
  gzip -c target/release/train > "$dir/train.gz"
  # The loader libraries (the driver itself is on the machine).
  o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
  mkdir -p /tmp/amd64/partial
  # shellcheck disable=SC2086
  apt-get $o update >/dev/null
  # shellcheck disable=SC2086
  (cd "$dir/gl" && apt-get $o download libvulkan1 >/dev/null)
  cp -r data/pieces/fenscan "$dir/pieces/"
  if [ -d ../shared/pieces/lichess ]; then cp -r ../shared/pieces/lichess "$dir/pieces/"; fi
  du -sh "$dir"
  ;;
run)
  : "${OUT:?run this on the device machine (OUT is its result folder)}"
  gunzip -c "$dir/train.gz" > /tmp/fenscan-train && chmod +x /tmp/fenscan-train
  for f in "$dir"/gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt" || true
  pieces=(--pieces "$dir/pieces/fenscan")
  holdout=()
  if [ -d "$dir/pieces/lichess" ]; then
    pieces+=(--pieces "$dir/pieces/lichess")
    holdout=(--holdout cardinal,chess7,dubrovny,governor,pixel,tatiana)
  fi
  start=$(date +%s)
  /tmp/fenscan-train --backend wgpu --out "$OUT/run" "${pieces[@]}" "${holdout[@]}" \
    --steps "${GPU_STEPS:-2000}" --seed 1 2>&1 | tee "$OUT/train.log"
  echo "gpu-check: $(( $(date +%s) - start )) s for ${GPU_STEPS:-2000} steps" | tee -a "$OUT/train.log"
  ;;
*)
  echo "usage: bash benches/gpu-check.sh prepare|run" >&2
  exit 2
  ;;
esac
