#!/usr/bin/env bash
# Makes a SIMULATED run directory for `hbm-ledger analyze`: the simulators in sim/bin (npu-smi,
# msprof, vLLM; no NPU involved) serve a model by name with TP 2 on NPUs 4 and 5 under msprof,
# with npu-smi samples at baseline, ready and after a short load, and run.json holding the
# wall-clock instants of each step. The msprof export is a few MB, so it is made, not committed.
#
#   examples/sim-tp2-msprof/make-run.sh [RUN_DIR]     # default: a new directory under /tmp
#   ./hbm-ledger analyze RUN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
run=${1:-$(mktemp -d "${TMPDIR:-/tmp}/hbm-sim-run.XXXXXX")}
port=${PORT:-18437}
mkdir -p "$run/evidence"
export HBM_SIM_HOME
HBM_SIM_HOME=$(mktemp -d "${TMPDIR:-/tmp}/hbm-sim-host.XXXXXX")
export PATH="$root/sim/bin:$PATH"
now() { date -u +%Y-%m-%dT%H:%M:%S.%3NZ; }

hbm-sim init --npus 8 >/dev/null
baseline=$(now)
npu-smi info > "$run/evidence/npu-smi-idle.txt"
ASCEND_RT_VISIBLE_DEVICES=4,5 VLLM_LOGGING_LEVEL=DEBUG setsid msprof --output="$run/evidence/msprof" \
    --sys-hardware-mem=on --sys-hardware-mem-freq=50 \
    vllm serve my-llama --port "$port" --tensor-parallel-size 2 --gpu-memory-utilization 0.9 \
    > "$run/evidence/serve.log" 2>&1 &
pid=$!
trap 'kill -KILL -- -"$pid" 2>/dev/null || true; rm -rf "$HBM_SIM_HOME"' EXIT
for _ in $(seq 1 240); do
    curl -sf "localhost:$port/health" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "simulated server died; see $run/evidence/serve.log" >&2; exit 1; }
    sleep 0.5
done
ready=$(now)
npu-smi info > "$run/evidence/npu-smi-ready.txt"
sleep 0.5
load_start=$(now)
for n in 1 2 3; do
    curl -s "localhost:$port/v1/completions" -H 'Content-Type: application/json' \
        -d '{"model":"my-llama","prompt":"where did my memory go","max_tokens":200}' >/dev/null &
done
wait $(jobs -p | grep -v "^$pid\$") 2>/dev/null || true
load_end=$(now)
sleep 0.5
npu-smi info > "$run/evidence/npu-smi-after.txt"
after=$(now)
kill -INT -- -"$pid"
wait "$pid" || true
stop=$(now)
msprof --export=on --output="$run/evidence/msprof" >/dev/null
cat > "$run/run.json" <<JSON
{"schema": "hbm-ledger/run/1",
 "source": "SIMULATED host (sim/bin simulators, examples/sim-tp2-msprof/make-run.sh)",
 "deployment": {"model": "my-llama", "tp": 2, "devices": [4, 5], "gpu_memory_utilization": 0.9},
 "moments": {"baseline": "$baseline", "ready": "$ready", "load_start": "$load_start", "load_end": "$load_end",
             "after": "$after", "stop": "$stop"},
 "evidence": [
   {"file": "evidence/npu-smi-idle.txt", "moment": "baseline"},
   {"file": "evidence/npu-smi-ready.txt", "moment": "ready"},
   {"file": "evidence/npu-smi-after.txt", "moment": "after"},
   {"file": "evidence/serve.log", "moment": "startup"},
   {"file": "evidence/msprof", "note": "msprof export of the whole execution (npu_mem, npu_module_mem, memory_record)"}]}
JSON
echo "$run"
