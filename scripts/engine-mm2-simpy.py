#!/usr/bin/env python3
"""The M/M/2 run of scripts/engine-memory.sh in SimPy, for comparison.

Poisson arrivals at 80 per second for CUSTOMERS / 80 seconds, two workers
behind one FIFO line with no limit, exponential service with mean 20 ms,
callers that count an answer within 2000 ms as ok (the server serves every
request): bplab's `run lesson --rate 80 --workers 2 --service exp:20
--limit off` for one rate and one seed. One process per customer, the usual
SimPy shape; latencies go into counts per whole ms, so the script's own
memory does not grow with the run either. Prints one line: customers, ok,
p50 and p99 (whole ms, nearest rank), mean latency, ms.

Usage: scripts/engine-mm2-simpy.py CUSTOMERS [SEED]   (needs: pip install simpy)
"""

import random
import sys

import simpy

RATE_PER_MS = 80 / 1000.0
MEAN_SERVICE_MS = 20.0
WORKERS = 2
TIMEOUT_MS = 2000.0


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    customers = float(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    window_ms = customers / 80.0 * 1000.0
    rng = random.Random(seed)
    env = simpy.Environment()
    workers = simpy.Resource(env, capacity=WORKERS)
    counts = {}
    stats = {"n": 0, "ok": 0, "sum": 0.0}

    def customer(arrival_ms, service_ms):
        with workers.request() as req:
            yield req
            yield env.timeout(service_ms)
        latency = env.now - arrival_ms
        stats["n"] += 1
        if latency <= TIMEOUT_MS:
            stats["ok"] += 1
            stats["sum"] += latency
            ms = int(latency + 0.5)
            counts[ms] = counts.get(ms, 0) + 1

    def source():
        while True:
            gap = rng.expovariate(RATE_PER_MS)
            if env.now + gap >= window_ms:
                return
            yield env.timeout(gap)
            env.process(customer(env.now, rng.expovariate(1.0 / MEAN_SERVICE_MS)))

    env.process(source())
    env.run()

    def pct(p):
        need = max(1, -(-int(p * stats["ok"]) // 100))
        seen = 0
        for ms in sorted(counts):
            seen += counts[ms]
            if seen >= need:
                return ms
        return None

    mean = stats["sum"] / stats["ok"] if stats["ok"] else float("nan")
    print(f"customers={stats['n']} ok={stats['ok']} p50_ms={pct(50)} p99_ms={pct(99)} mean_ms={mean:.1f}")


if __name__ == "__main__":
    main()
