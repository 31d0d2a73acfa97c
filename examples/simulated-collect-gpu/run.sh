#!/usr/bin/env bash
# A full collect-then-analyze on a SIMULATED NVIDIA host (no GPU): the simulators in sim/bin
# stand in for nvidia-smi and vLLM (see docs/readme-sim.md). `hbm-ledger collect --accelerator
# nvidia` runs unchanged through PATH: idle baseline (nvidia-smi --query-gpu and
# --query-compute-apps), vLLM (TP 2 on GPUs 2 and 3, CUDA_VISIBLE_DEVICES=2,3 in PCI bus order),
# ready samples, a short load sampled continuously (nvidia-smi -lms), after samples, stop, then
# `hbm-ledger analyze`. No msprof: the run is complete when the GPU evidence is. NCCL_DEBUG=INFO with
# the ALLOC subsystem makes (simulated) NCCL print its buffer allocations into the log: the nccl line.
#
#   examples/simulated-collect-gpu/run.sh [RUN_DIR]      # default: a new directory under /tmp
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
run=${1:-$(mktemp -u "${TMPDIR:-/tmp}/hbm-ledger-sim-gpu-run.XXXXXX")}
port=${PORT:-18438}

# A private simulated host and execution state, removed afterwards; the run directory stays.
export HBM_SIM_HOME HBM_LEDGER_STATE
HBM_SIM_HOME=$(mktemp -d "${TMPDIR:-/tmp}/hbm-sim-gpu-host.XXXXXX")
HBM_LEDGER_STATE=$(mktemp -d "${TMPDIR:-/tmp}/hbm-ledger-state.XXXXXX")
trap 'rm -rf "$HBM_SIM_HOME" "$HBM_LEDGER_STATE"' EXIT
export PATH="$root/sim/bin:$PATH"

hbm-sim init --gpus 4 >/dev/null
set +e
# sim/bin holds npu-smi too, so the accelerator is named rather than detected
"$root/hbm-ledger" collect --accelerator nvidia --out "$run" --devices 2,3 \
    --baseline-samples 2 --ready-samples 2 --after-samples 2 --load-interval 0.5 \
    --requests 8 --concurrency 4 --input-tokens 512 --output-tokens 64 \
    --env NCCL_DEBUG=INFO --env NCCL_DEBUG_SUBSYS=INIT,ENV,ALLOC \
    -- vllm serve "$here/../simulated-collect/model" --tensor-parallel-size 2 --port "$port" --gpu-memory-utilization 0.9
rc=$?
set -e
# 0 = complete, 3 = incomplete (the reasons are in run.json and in the ledger): both analysable
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    echo "collect failed (exit $rc); see $run/run.json" >&2
    exit "$rc"
fi
echo
"$root/hbm-ledger" analyze "$run"
