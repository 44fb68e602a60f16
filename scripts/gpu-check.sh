#!/usr/bin/env bash
# gpu-check.sh [SECONDS] -- on a machine with an NVIDIA GPU (driver, and
# DCGM's libdcgm.so.4), sample every GPU through DCGM and NVML side by side
# for SECONDS (default 60) under a small load and compare their energy
# counters and utilization (agreement within 1 %). Prints one JSON summary
# as its last line (scripts/gpucheck). The load is a PyTorch matmul loop
# when python3 has torch, else a CUDA-free idle run (said in "load").
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
secs=${1:-60}
command -v nvidia-smi >/dev/null || { echo "gpu-check: no nvidia-smi: not a GPU machine" >&2; exit 2; }
echo "gpu-check: building scripts/gpucheck with -tags dcgm,nvml" >&2
CGO_ENABLED=1 go build -tags dcgm,nvml -o /tmp/strata-gpucheck ./scripts/gpucheck
load=none
pid=
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  load="torch matmul 4096x4096, half the run"
  python3 - "$secs" <<'PY' &
import sys, time, torch
end = time.time() + float(sys.argv[1]) / 2
a = torch.randn(4096, 4096, device="cuda")
while time.time() < end:
    (a @ a).sum().item()
PY
  pid=$!
fi
nvidia-smi --query-gpu=name,driver_version,power.draw --format=csv,noheader >&2 || true
/tmp/strata-gpucheck -duration "${secs}s" -load "$load"
[ -z "$pid" ] || wait "$pid"
