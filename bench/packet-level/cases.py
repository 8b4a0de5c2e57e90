#!/usr/bin/env python3
"""The cases of tools/packet-level-compare.sh, written for both simulators, and the table of their results.

gen CASE SEED QPS OUT   writes OUT.yaml (a dpusim traffic file) and OUT.cm (an htsim connection matrix)
                        for CASE: permutation (every host of fabric-256-64port to one on another node,
                        16 MiB), incastN (N hosts of the other leaves to host 0, 16 MiB each) or alltoallN
                        (N hosts over every node, 1 MiB a pair of two nodes) or victimN (N hosts of leaf 1
                        into host 0, and a victim of leaf 1 to host 8, 64 MiB) or ringK (a ring all-reduce
                        of 64 MiB a rank among GPU 0 of the 32 nodes, beside background flows from GPUs
                        1..K of every node to the same GPU four nodes on, on the next leaf) or
                        alltoallopN (alltoallN as NCCL's one operation in dpusim; alltoallopNpP: with
                        each node's sends as P activities, `parts: P`); htsim gets
                        QPS connections a pair, each with its share of the bytes (dpusim splits a pair's
                        bytes over its NCCL connections itself).
table DIR               prints the markdown table of DIR/<case>-<seed>-<qps>.{htsim.log,dpusim/flows.csv}
ring-table DIR          the same of the ring cases (their dpusim/collectives.csv)
alltoallop-table DIR    the same of the alltoallopN cases.
"""
import csv
import random
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HOSTS = 256
PER_NODE = 8
PER_LEAF = 32
SIZE = 16 * 1024 * 1024
A2A_SIZE = 1024 * 1024  # each pair's bytes in an all-to-all
RING_SIZE = 64 * 1024 * 1024  # each rank's buffer in a ring all-reduce
BACKGROUND_SIZE = 2_000_000_000  # an htsim background flow: more than it moves while the ring runs


def pairs_of(case, seed):
    if case == "permutation":
        rng = random.Random(seed)
        hosts = list(range(HOSTS))
        while True:
            dst = hosts[:]
            rng.shuffle(dst)
            if all(h // PER_NODE != d // PER_NODE for h, d in zip(hosts, dst)):
                return list(zip(hosts, dst))
    if case.startswith("incast"):
        n = int(case[len("incast"):])
        # One sender per node of the other leaves, round-robin over the leaves: every sender's flow
        # crosses the spines into leaf 0.
        leaves = HOSTS // PER_LEAF - 1
        senders = []
        for i in range(n):
            k = i // leaves  # the k-th sender of its leaf: GPU k // 4 of the leaf's node k % 4
            senders.append((1 + i % leaves) * PER_LEAF + (k % 4) * PER_NODE + k // 4)
        assert len(set(senders)) == n
        return [(s, 0) for s in senders]
    if case.startswith("victim"):
        # N senders of leaf 1 (GPU k // 4 of its node k % 4) into host 0 (leaf 0), and a victim from
        # another host of leaf 1 to host 8 of leaf 0 (a node of its own): where ECMP puts the victim on a
        # spine with an incast flow, the receiver's pauses reach it there.
        n = int(case[len("victim"):])
        senders = [PER_LEAF + (k % 4) * PER_NODE + k // 4 for k in range(n)]
        victim = PER_LEAF + 7  # GPU 7 of leaf 1's first node
        assert victim not in senders
        return [(s, 0) for s in senders] + [(victim, 8)]
    if case.startswith("alltoall"):
        # An all-to-all among N hosts spread over every node (GPUs 0 and 4 of each for N = 64), the pairs
        # of one node left out (NVLink in dpusim, the leaf in htsim).
        n = int(case[len("alltoall"):])
        per_node = n // (HOSTS // PER_NODE)
        hosts = [node * PER_NODE + g * (PER_NODE // per_node) for node in range(HOSTS // PER_NODE)
                 for g in range(per_node)]
        return [(s, d) for s in hosts for d in hosts if s // PER_NODE != d // PER_NODE]
    sys.exit(f"cases.py: unknown case {case}")


def ring_members():
    return [node * PER_NODE for node in range(HOSTS // PER_NODE)]


def background_of(k):
    """GPUs 1..k of every node, each to the same GPU four nodes on (the next leaf of 32 hosts)."""
    nodes = HOSTS // PER_NODE
    return [(n * PER_NODE + g, ((n + 4) % nodes) * PER_NODE + g) for n in range(nodes) for g in range(1, k + 1)]


def gen_ring(k, qps, out):
    """A ring all-reduce as NCCL runs it over one GPU a node: 2(n - 1) steps, each rank sending a chunk of
    S / (n x channels) a channel to the next; in htsim each step's flow starts when the previous step's
    flow into its sender has been delivered (a oneshot trigger on that flow's completion)."""
    ring = ring_members()
    n = len(ring)
    background = background_of(k)
    with open(out + ".yaml", "w") as f:
        f.write("pxn: false\ntraffic:\n")
        f.write(f"  - {{name: ring, pattern: all_reduce, hosts: {ring}, bytes: {RING_SIZE}B}}\n")
        if background:
            f.write(f"  - {{name: tenants, pattern: shift, hosts: {[s for s, _ in background]}, "
                    f"by: {4 * k}, background: true}}\n")
    steps = 2 * (n - 1)
    chunk = RING_SIZE // (n * qps)
    flow_id = lambda step, rank, ch: 1 + (step * n + rank) * qps + ch
    lines, triggers = [], []
    for step in range(steps):
        for rank in range(n):
            for ch in range(qps):
                fid = flow_id(step, rank, ch)
                line = f"{ring[rank]}->{ring[(rank + 1) % n]} id {fid}"
                line += " start 0" if step == 0 else f" trigger {1_000_000 + flow_id(step - 1, (rank - 1) % n, ch)}"
                line += f" size {chunk}"
                if step < steps - 1:
                    line += f" send_done_trigger {1_000_000 + fid}"
                    triggers.append(f"trigger id {1_000_000 + fid} oneshot")
                lines.append(line)
    for s, d in background:  # each a send with as many connections as dpusim opens (the channels)
        lines += [f"{s}->{d} start 0 size {BACKGROUND_SIZE}"] * qps
    with open(out + ".cm", "w") as f:
        f.write(f"Nodes {HOSTS}\nConnections {len(lines)}\nTriggers {len(triggers)}\n")
        f.write("\n".join(lines + triggers) + "\n")


def alltoallop_of(case):
    """alltoallopN or alltoallopNpP: the hosts N and the parts a node P (None: the default)."""
    m = re.fullmatch(r"alltoallop(\d+)(?:p(\d+))?", case)
    if not m:
        sys.exit(f"cases.py: {case}: an all-to-all operation is alltoallopN or alltoallopNpP")
    return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)


def gen(case, seed, qps, out):
    if case.startswith("ring"):
        return gen_ring(int(case[len("ring"):]), int(qps), out)
    if case.startswith("alltoallop"):
        # The all-to-all as NCCL's one operation in dpusim (the lowering a training run's expert
        # all-to-alls take: each node's sends one activity, or `parts` of them), the same flows in htsim.
        n, parts = alltoallop_of(case)
        gen(f"alltoall{n}", seed, qps, out)
        hosts = sorted({s for s, _ in pairs_of(f"alltoall{n}", int(seed))})
        with open(out + ".yaml", "w") as f:
            f.write(f"pxn: false\ntraffic:\n  - {{name: a2a, pattern: alltoall, hosts: {hosts}, "
                    f"bytes: {A2A_SIZE * len(hosts)}B{f', parts: {parts}' if parts else ''}}}\n")
        return
    pairs = pairs_of(case, int(seed))
    qps = int(qps)
    size = A2A_SIZE if case.startswith("alltoall") else SIZE
    sizes = [size] * len(pairs)
    if case.startswith("victim"):
        sizes[-1] = 4 * SIZE  # the victim: long enough to meet the incast all along
    with open(out + ".yaml", "w") as f:
        f.write("pxn: false\ntraffic:\n")
        for i, ((s, d), b) in enumerate(zip(pairs, sizes)):
            f.write(f"  - {{name: f{i}, pattern: flow, from: {s}, to: {d}, bytes: {b}B}}\n")
    with open(out + ".cm", "w") as f:
        f.write(f"Nodes {HOSTS}\nConnections {len(pairs) * qps}\n")
        for (s, d), b in zip(pairs, sizes):
            for _ in range(qps):
                f.write(f"{s}->{d} start 0 size {b // qps}\n")


def quantile(values, q):
    v = sorted(values)
    k = (len(v) - 1) * q
    i = int(k)
    return v[i] + (v[min(i + 1, len(v) - 1)] - v[i]) * (k - i)


def ring_times(directory, log, case, seed, qps):
    """htsim's collective time (its last flow's end) and dpusim's, under PFC and max-min: a ring
    all-reduce's flows, or an all-to-all's."""
    if case.startswith("alltoallop"):
        hops = set(pairs_of(f"alltoall{alltoallop_of(case)[0]}", int(seed)))
        expected = len(hops) * int(qps)
    else:
        ring = ring_members()
        hops = {(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))}
        expected = 2 * (len(ring) - 1) * len(ring) * int(qps)
    ends = [float(m.group(3)) for m in re.finditer(r"Flow Roce_(\d+)_(\d+) \d+ finished at ([0-9.]+)", log.read_text())
            if (int(m.group(1)), int(m.group(2))) in hops]
    if len(ends) != expected:
        sys.exit(f"cases.py: {log.name}: htsim finished {len(ends)} of the collective's {expected} flows (raise -end)")
    rows = list(csv.DictReader(open(Path(directory) / f"{case}-{seed}-{qps}.dpusim" / "collectives.csv")))
    return max(ends), float(rows[0]["time_s"]) * 1e6, float(rows[0]["uncongested_time_s"]) * 1e6


def ring_table(rings):
    print("| case | channels | seeds | htsim, each seed (us) | dpusim, PFC | dpusim, max-min | "
          "mean: dpusim vs htsim |")
    print("|---|---|---|---|---|---|---|")
    def order(item):  # the all-to-alls by hosts, then parts; then the connections
        (case, qps), _ = item
        if case.startswith("alltoallop"):
            n, parts = alltoallop_of(case)
            return (n, parts or 1, ""), int(qps)
        return (0, 0, case), int(qps)

    for (case, qps), r in sorted(rings.items(), key=order):
        h, d, u = ([x[i] for x in r] for i in range(3))
        fmt = lambda v: " / ".join(f"{x:.0f}" for x in v)
        if case.startswith("alltoallop"):
            n, parts = alltoallop_of(case)
            label = f"alltoall{n} as one operation, {parts or 1} part{'s' if (parts or 1) > 1 else ''} a node"
        elif case == "ring0":
            label = "ring0 (alone)"
        else:
            k = int(case[len("ring"):])
            label = f"{case} (beside GPU{'s 1-' if k > 1 else ' '}{k} of every node)"
        print(f"| {label} | {qps} | {len(r)} | {fmt(h)} | {fmt(d)} | {fmt(u)} | "
              f"{100 * (statistics.mean(d) / statistics.mean(h) - 1):+.1f}% |")


def table(directory, ring_only=False, prefix="ring"):
    rows = defaultdict(lambda: {"h": [], "d": [], "u": []})
    rings = defaultdict(list)
    for log in sorted(Path(directory).glob("*.htsim.log")):
        case, seed, qps = log.name[: -len(".htsim.log")].rsplit("-", 2)
        if case.startswith("ring") or case.startswith("alltoallop"):
            if ring_only and case.startswith(prefix):
                rings[(case, qps)].append(ring_times(directory, log, case, seed, qps))
            continue
        if ring_only:
            continue
        pair = defaultdict(float)  # a pair ends with its last connection
        for m in re.finditer(r"Flow Roce_(\d+)_(\d+) \d+ finished at ([0-9.]+)", log.read_text()):
            key = (m.group(1), m.group(2))
            pair[key] = max(pair[key], float(m.group(3)))
        flows = list(csv.DictReader(open(Path(directory) / f"{case}-{seed}-{qps}.dpusim" / "flows.csv")))
        if len(pair) != len(flows):
            sys.exit(f"cases.py: {log.name}: htsim finished {len(pair)} pairs of {len(flows)}")
        # A victim case is two rows: the incast's flows (into host 0) and the victim's.
        parts = {"": lambda dst: True}
        if case.startswith("victim"):
            parts = {" (incast)": lambda dst: dst == 0, " (victim)": lambda dst: dst != 0}
        for label, keep in parts.items():
            r = rows[(case + label, qps)]
            r["h"].append([t for (s, d), t in pair.items() if keep(int(d))])
            r["d"].append([float(x["fct_s"]) * 1e6 for x in flows if keep(int(x["dst"]))])
            r["u"].append([float(x["uncongested_fct_s"]) * 1e6 for x in flows if keep(int(x["dst"]))])
    if ring_only:
        ring_table(rings)
        return
    print("| case | connections a pair | seeds | htsim mean / p90 / max FCT (us) | dpusim, PFC | dpusim, max-min | "
          "mean: dpusim vs htsim | p90 |")
    print("|---|---|---|---|---|---|---|---|")
    for (case, qps), r in sorted(rows.items()):
        def stats(runs):
            mean = statistics.mean(statistics.mean(x) for x in runs)
            p90 = statistics.mean(quantile(x, 0.9) for x in runs)
            worst = statistics.mean(max(x) for x in runs)
            return mean, p90, worst
        h, d, u = stats(r["h"]), stats(r["d"]), stats(r["u"])
        fmt = lambda s: " / ".join(f"{v:.0f}" for v in s)
        print(f"| {case} | {qps} | {len(r['h'])} | {fmt(h)} | {fmt(d)} | {fmt(u)} | "
              f"{100 * (d[0] / h[0] - 1):+.1f}% | {100 * (d[1] / h[1] - 1):+.1f}% |")


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "gen":
        gen(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "ring-table":
        table(sys.argv[2], ring_only=True, prefix="ring")
    elif len(sys.argv) == 3 and sys.argv[1] == "alltoallop-table":
        table(sys.argv[2], ring_only=True, prefix="alltoallop")
    else:
        sys.exit(__doc__)
