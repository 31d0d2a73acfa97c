#!/usr/bin/env bash
# A full collect-then-analyze on a SIMULATED Ascend host (no NPU): the simulators in sim/bin
# stand in for npu-smi, msprof and vLLM (see docs/readme-sim.md). `hbm-ledger collect` runs
# unchanged through PATH: idle baseline, vLLM (TP 2 on NPUs 2 and 3) under msprof, ready
# samples, a short load, after samples, stop, msprof export, then `hbm-ledger analyze`.
#
#   examples/simulated-collect/run.sh [RUN_DIR]      # default: a new directory under /tmp
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
run=${1:-$(mktemp -u "${TMPDIR:-/tmp}/hbm-ledger-sim-run.XXXXXX")}
port=${PORT:-18437}

# A private simulated host and execution state, removed afterwards; the run directory stays.
export HBM_SIM_HOME HBM_LEDGER_STATE
HBM_SIM_HOME=$(mktemp -d "${TMPDIR:-/tmp}/hbm-sim-host.XXXXXX")
HBM_LEDGER_STATE=$(mktemp -d "${TMPDIR:-/tmp}/hbm-ledger-state.XXXXXX")
trap 'rm -rf "$HBM_SIM_HOME" "$HBM_LEDGER_STATE"' EXIT
export PATH="$root/sim/bin:$PATH"

hbm-sim init --npus 8 >/dev/null
set +e
"$root/hbm-ledger" collect --out "$run" --devices 2,3 \
    --baseline-samples 2 --ready-samples 2 --after-samples 2 \
    --requests 8 --concurrency 4 --input-tokens 512 --output-tokens 64 \
    -- vllm serve "$here/model" --tensor-parallel-size 2 --port "$port" --gpu-memory-utilization 0.9
rc=$?
set -e
# 0 = complete, 3 = incomplete (the reasons are in run.json and in the ledger): both analysable
if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    echo "collect failed (exit $rc); see $run/run.json" >&2
    exit "$rc"
fi
echo
"$root/hbm-ledger" analyze "$run"
