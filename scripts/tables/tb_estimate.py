#!/usr/bin/env python3
"""The cost of the next standard tablebase set, from measured smaller ones.

Usage: scripts/tables/tb_estimate.py bound7.log [8-piece CPU s] [8-piece peak GiB]

bound7.log is the stderr of `yote tb generate --pieces 7 --memory-bound
--threads 1`: one line per class pair with its CPU seconds, the positions it
probed and its own peak memory. From it: the CPU cost per position by piece
count, and the solver's working bytes per position of a pair. It predicts 8
pieces from <= 7 (compare with the measured figures given as arguments),
then 9 from the measured 8: CPU, the peak memory of today's generation (every
table held) and of --memory-bound (the pair and the classes it probes, which
it works out as src/tablebase/bound.rs does), and the stages a cluster
would share out with --classes K/N. docs/tablebases.md, "Nine pieces".
"""
import re, sys
from math import comb
CELLS = 30
def size(c): return comb(CELLS, c[0]) * comb(CELLS - c[0], c[1])
def partner(c): return (c[1], c[0], c[3], c[2])
def needs(c): return c[0]+c[2] > 1 and c[1]+c[3] > 1 and c[0]+c[1] <= CELLS
def classes(maxp, P=12):
    return {(a,b,h,k) for a in range(P+1) for b in range(P+1) for h in range(P+1-a)
            for k in range(P+1-b) if a+b+h+k <= maxp and needs((a,b,h,k))}
def pairs_of(cl):
    out = []
    for c in sorted(cl, key=lambda c: ((sum(c), c[2]+c[3]), c)):
        p = partner(c)
        if p < c and p in cl: continue
        out.append([c] if p == c or p not in cl else [c, p])
    return out
def exits(c, have):
    mb, ob, mh, oh = c
    out = set()
    for (a, h) in [(mb, mh)] + ([(mb+1, mh-1)] if mh else []):
        for b in range(ob+1):
            for k in range(oh+1):
                s = (a, b, h, k)
                for ch in (s, partner(s)):
                    if ch != c and ch != partner(c) and ch in have: out.add(ch)
    return out

rows = []
for line in open(sys.argv[1]):
    m = re.match(r"class (.*) solved in ([\d.]+) s \(([\d.]+) CPU s\), (\d+) positions probed, peak memory (\d+) MiB", line)
    if not m: continue
    names = [tuple(int(x) for x in n.split()) for n in m.group(1).split(" + ")]
    rows.append((names, float(m.group(3)), int(m.group(4)), int(m.group(5))))
base = min(r[3] for r in rows)
cpu = {}; pos = {}
for names, c, probed, peak in rows:
    k = sum(names[0]); n = sum(size(x) for x in names)
    cpu[k] = cpu.get(k, 0) + c; pos[k] = pos.get(k, 0) + n
print("measured, one thread, memory bound:")
for k in sorted(cpu):
    print(f"  {k} pieces: {pos[k]:>13,} positions, {cpu[k]:7.1f} CPU s, {1e6*cpu[k]/pos[k]:.3f} us/position")
# The pairs of 50 M positions or more: below that the base memory blurs it.
big = sorted((r for r in rows if sum(size(x) for x in r[0]) >= 5 * 10**7), key=lambda r: -sum(size(x) for x in r[0]))
Bs = []
for names, c, probed, peak in big:
    n = sum(size(x) for x in names)
    B = (peak - base) * 2**20 / n - probed / n
    Bs.append(B)
    print(f"  pair {' + '.join(map(str, names))}: {n:,} positions, {probed:,} probed, peak {peak} MiB -> {B:.2f} B/position")
B = max(Bs)
print(f"working bytes per position of the pair (pairs of 50 M positions or more, max): {B:.2f}; base {base} MiB")
c6, c7 = cpu[6]/pos[6], cpu[7]/pos[7]
growth = c7 / c6
def whole_peak(maxp, found_twice=False):
    # found_twice: the generator before format 2 kept the tables it found on
    # disk twice (its list of found tables and their copies in the set).
    found = sum(size(c) for c in classes(maxp - 1))
    cl = classes(maxp); held = found * (2 if found_twice else 1); best = 0
    for pr in pairs_of({c for c in cl if sum(c) == maxp}):
        n = sum(size(c) for c in pr)
        best = max(best, held + B * n); held += n
    return base * 2**20 + best
def bound_peak(maxp):
    cl = classes(maxp); best = (0, None)
    for pr in pairs_of({c for c in cl if sum(c) == maxp}):
        n = sum(size(c) for c in pr); probed = set()
        for c in pr: probed |= exits(c, cl)
        m = B * n + sum(size(c) for c in probed)
        best = max(best, (m, pr))
    return base * 2**20 + best[0], best[1]
n8 = sum(size(c) for c in classes(8) if sum(c) == 8)
n9 = sum(size(c) for c in classes(9) if sum(c) == 9)
p8 = n8 * c7 * growth
# The measured 8-piece CPU came from two threads, which cost this much more
# CPU than one on this machine (200 against 135 s for <= 7, docs).
TWO_THREADS = 200 / 135
print(f"\n8 pieces predicted from <= 7: {n8:,} positions x {1e6*c7:.3f} us x {growth:.2f} (the 6 -> 7 growth) = {p8:.0f} CPU s")
if len(sys.argv) > 2:
    m8 = float(sys.argv[2])
    one = m8 / TWO_THREADS
    print(f"  measured {m8:.0f} CPU s with two threads, ~{one:.0f} s for one (prediction / measured = {p8/one:.2f})")
    for label, c8 in (("one thread", one / n8), ("as measured", m8 / n8)):
        g = c8 / c7
        t9 = n9 * c8 * g
        print(f"9 pieces ({label}): {n9:,} positions x {1e6*c8:.3f} us x {g:.2f} (7 -> 8 growth) = {t9:.0f} CPU s ({t9/3600:.1f} CPU hours)")
print(f"8 whole-set peak predicted: {whole_peak(8)/2**30:.2f} GiB, {whole_peak(8, True)/2**30:.2f} GiB with the found tables held twice as before format 2" + (f"; measured {sys.argv[3]} GiB" if len(sys.argv) > 3 else ""))
bp8, pr8 = bound_peak(8); bp9, pr9 = bound_peak(9)
print(f"8 memory-bound peak predicted: {bp8/2**30:.2f} GiB (pair {pr8})")
print(f"9 whole-set peak predicted: {whole_peak(9)/2**30:.2f} GiB")
print(f"9 memory-bound peak predicted: {bp9/2**30:.2f} GiB (pair {pr9})")
print("\n9-piece stages (pieces, in hand): pairs, positions, largest pair, its bounded memory")
cl9 = classes(9); crit = 0
stages = {}
for pr in pairs_of({c for c in cl9 if sum(c) == 9}):
    stages.setdefault((9, pr[0][2] + pr[0][3]), []).append(pr)
for st, prs in sorted(stages.items()):
    sizes = [sum(size(c) for c in pr) for pr in prs]
    big = max(range(len(prs)), key=lambda i: sizes[i])
    probed = set()
    for c in prs[big]: probed |= exits(c, cl9)
    mem = base * 2**20 + B * sizes[big] + sum(size(c) for c in probed)
    crit += sizes[big]
    print(f"  {st}: {len(prs)} pairs, {sum(sizes):,} positions, largest {prs[big]} {sizes[big]:,}, {mem/2**30:.2f} GiB")
print(f"critical path (the largest pair of every stage): {crit:,} positions of {n9:,} ({crit/n9:.0%})")
