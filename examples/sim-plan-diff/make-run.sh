#!/usr/bin/env bash
# Makes one SIMULATED run directory (sim/bin simulators, no NPU): vLLM serving the Llama-3.1-8B shape of
# examples/simulated-collect/model with TP 2 on NPUs 2 and 3, an npu-smi sample at ready, run.json.
#   examples/sim-plan-diff/make-run.sh RUN_DIR UTILIZATION [more vllm args, e.g. --enforce-eager]
# Two of them differing in one setting are what `hbm-ledger diff` explains (docs/readme-plan.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
run=$1; util=$2; shift 2
mkdir -p "$run/evidence"
export HBM_SIM_HOME=$(mktemp -d); export PATH="$root/sim/bin:$PATH"
hbm-sim init --npus 4 >/dev/null
port=$((18000 + RANDOM % 1000))
ASCEND_RT_VISIBLE_DEVICES=2,3 setsid vllm serve "$root/examples/simulated-collect/model" --port $port --tensor-parallel-size 2 --gpu-memory-utilization $util --sim-step-ms 1 "$@" > "$run/evidence/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do grep -q "Application startup complete" "$run/evidence/serve.log" && break; sleep 0.25; done
npu-smi info > "$run/evidence/npu-smi-ready.txt"
kill -INT -- -$pid; wait $pid || true
rm -rf "$HBM_SIM_HOME"
cat > "$run/run.json" <<JSON
{"schema": "hbm-ledger/run/1", "source": "SIMULATED host",
 "deployment": {"model": "llama-8b-shape", "tp": 2, "devices": [2, 3], "gpu_memory_utilization": $util},
 "evidence": [{"file": "evidence/npu-smi-ready.txt", "moment": "ready"}, {"file": "evidence/serve.log", "moment": "startup"}]}
JSON
