#!/bin/sh
# The ideal 2-thread ratio of each model from instruction counts (issue 29), independent of the
# machine's load: bench_threads_balance under callgrind dumps the instructions of every op's
# serial part and of every piece of every parallel region (see bench/threads_balance.c); this
# script replays the worker group's claim rule over the pieces for threads of equal speed
# (each its own contiguous range from the front, then the others' from the back) and prints,
# per model:
#   1 thread      instructions of the invoke on 1 thread;
#   2 threads     all instructions of the invoke on 2 threads (splitting's own cost included);
#   serial        what stays on the caller (ops not split, the ops' parts before and after their
#                 regions, the runtime between ops);
#   span          serial + each region's finishing time (the later thread's);
#   ideal         1 thread / span: the speed-up if a fork/join cost nothing;
#   split ops     ops with a region / all ops; regions;
#   with sync     1 thread / (span + regions x SYNC_NS expressed in instructions at the 1-thread
#                 run's rate IPNS instructions per ns): the ideal with a fork/join's cost.
# With VERBOSE=1, also every op: its 1-thread instructions, and on 2 threads its serial part,
# each thread's share and the finishing time.
# Usage: bench/threads_balance.sh [MODEL...] (default: issue 29's 2-thread models).
# Environment: BUILD=build, SIMD=avx2, KERNELS=fast (or auto), THREADS=2, SYNC_NS=500,
# IPNS=25 (callgrind's instructions per ns of the
# 1-thread invoke at avx2 on this project's Zen 3 machine; the script cannot time), VERBOSE=0, INPLACE=1 (0:
# run without options.inplace), FLOOR=0 (else ap_fast_tasks's floor, as parallel_min).
BUILD=${BUILD:-build}
SIMD=${SIMD:-avx2}
KERNELS=${KERNELS:-fast}
THREADS=${THREADS:-2}
SYNC_NS=${SYNC_NS:-500}
IPNS=${IPNS:-25}
VERBOSE=${VERBOSE:-0}
INPLACE=${INPLACE:-1}
FLOOR=${FLOOR:-0}
[ $# -gt 0 ] || set -- mlperf_vww_int8 mlperf_ic_resnet_int8 mobilenet_v2_torch_int8 \
  mlperf_ic_resnet_float mobilenet_v1_025_128_uint8
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$BUILD" && AP_SIMD=$SIMD valgrind --tool=callgrind --separate-threads=yes --dump-instr=no \
  --callgrind-out-file="$dir/cg" bench/bench_threads_balance --kernels "$KERNELS" \
  --threads "$THREADS" $([ "$INPLACE" = 1 ] || echo --no-inplace) --floor "$FLOOR" "$@" >"$dir/log" 2>&1) || { cat "$dir/log"; exit 1; }
python3 - "$dir" "$THREADS" "$SYNC_NS" "$IPNS" "$VERBOSE" <<'EOF'
import glob, os, re, sys
d, T, sync_ns, ipns, verbose = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1"
dumps = []
for f in glob.glob(os.path.join(d, "cg.*-01")):
    part = label = None; cost = 0
    for line in open(f):
        if line.startswith("part:"): part = int(line.split()[1])
        elif line.startswith("desc: Trigger: Client Request: "): label = line[len("desc: Trigger: Client Request: "):].strip()
        elif line.startswith("summary:") or line.startswith("totals:"): cost = int(line.split()[1]); break
    if label and label.startswith("ap "): dumps.append((part, label.split()[1:], cost))
dumps.sort()

def makespan(costs, T):
    """Finishing time of a region whose pieces cost `costs`, claimed by T equal threads."""
    n = len(costs)
    rng = [[(s * n + T - 1) // T, ((s + 1) * n + T - 1) // T] for s in range(T)]
    t = [0] * T; done = [False] * T
    while not all(done):
        s = min((x for x in range(T) if not done[x]), key=lambda x: (t[x], x))
        if rng[s][0] < rng[s][1]:
            t[s] += costs[rng[s][0]]; rng[s][0] += 1; continue
        for k in range(1, T):
            r = rng[(s + k) % T]
            if r[0] < r[1]:
                r[1] -= 1; t[s] += costs[r[1]]; break
        else:
            done[s] = True
    return max(t), t

models = {}
for part, f, cost in dumps:
    if f[0] == "skip": continue
    kind, model, th, op = f[0], f[1], int(f[2]), int(f[3])
    m = models.setdefault(model, {1: {}, T: {}})
    o = m[th].setdefault(op, {"serial": 0, "regions": []})
    if kind == "piece":
        i, n = int(f[4]), int(f[5])
        if i == 0 or not o["regions"] or len(o["regions"][-1]) == n: o["regions"].append([])
        o["regions"][-1].append(cost)
    else:
        o["serial"] += cost

print("| model | 1 thread (instr.) | %d threads (instr.) | serial | span | ideal ratio | split ops / ops | regions | with %.1f us sync |" % (T, sync_ns / 1000))
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for model, m in models.items():
    w1 = sum(o["serial"] + sum(map(sum, o["regions"])) for o in m[1].values())
    w2 = serial = span = regions = split = 0
    rows = []
    for k in sorted(m[T]):
        o = m[T][k]; w2 += o["serial"] + sum(map(sum, o["regions"]))
        serial += o["serial"]; span += o["serial"]; split += bool(o["regions"])
        shares = [0] * T; fin = 0
        for r in o["regions"]:
            regions += 1
            ms, t = makespan(r, T); span += ms; fin += ms
            shares = [a + b for a, b in zip(shares, t)]
        one = m[1].get(k, {"serial": 0})["serial"]
        rows.append((k, one, o["serial"], shares, fin, len(o["regions"]), sum(len(r) for r in o["regions"])))
    sync = regions * sync_ns * ipns
    print("| %s | %d | %d | %d | %d | %.2fx | %d / %d | %d | %.2fx |" % (model, w1, w2, serial, span, w1 / span, split, len(m[T]), regions, w1 / (span + sync)))
    if verbose:
        print("\n| op | 1 thread | serial on %d | thread shares | regions finish | regions | pieces |\n|---:|---:|---:|---|---:|---:|---:|" % T)
        for k, one, ser, sh, fin, nr, npc in rows:
            print("| %d | %d | %d | %s | %d | %d | %d |" % (k, one, ser, " / ".join(map(str, sh)), fin, nr, npc))
        print()
EOF
