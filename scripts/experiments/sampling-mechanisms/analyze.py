import sys, numpy as np, collections
d = sys.argv[1]
P = lambda a, q: float(np.percentile(a, q)) if len(a) else float('nan')
tr = collections.defaultdict(list)
for line in open(f"{d}/trials.tsv"):
    f = line.rstrip('\n').split('\t')
    if f[2] == 'SETUP_FAILED': tr[f[1]].append(None); continue
    rep = int(f[0]); v = list(map(int, f[2:]))
    tr[f[1]].append(dict(rep=rep, wall=v[0], lg=v[1], cpu=v[2], n=v[3], matched=v[4], ovr=v[5], ngap=v[6], ringall=v[7],
        irq=v[8:16], nrtt=v[16], lost=v[17]))
base = collections.defaultdict(list)
for t in tr['none']: base[t['rep']].append(t['wall'] - t['lg'])
sm = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(f"{d}/samples.tsv"):
    f = line.split('\t'); m = f[1]
    g, hd, pre, post, iv = map(float, f[2:7])
    if g >= 0: sm[m]['gap'].append(g); sm[m]['pre'].append(pre); sm[m]['post'].append(post)
    sm[m]['hd'].append(hd)
    if iv >= 0: sm[m]['iv'].append(iv)
    sm[m]['depth'].append(int(f[8]))
rt = collections.defaultdict(lambda: ([], []))
try:
    for line in open(f"{d}/rtt.tsv"):
        f = line.split('\t'); rt[f[1]][0].append(float(f[2])); rt[f[1]][1].append(float(f[3]))
except FileNotFoundError: pass
print(f"{'method':24s} {'smp/msCPU':>9s} {'interval us p10/50/90':>22s} {'ovr/smp':>7s} | {'tput cost us p50 [p25,p75] (p10,p90)':>38s} | {'gap us p10/50/90':>18s} match {'hdl':>5s} {'pre':>5s} {'post':>5s} | irq/sample CPU1 LOC RES CAL IWI ; CPU0 LOC RES CAL IWI")
bl = [g for g in sm['none']['gap']]
for m, ts in tr.items():
    ts2 = [t for t in ts if t]
    if not ts2: print(m, "SETUP FAILED"); continue
    n = sum(t['n'] for t in ts2); cpu = sum(t['cpu'] for t in ts2)
    rate = n / (cpu / 1e6)
    iv = np.array(sm[m]['iv']) / 1e3
    costs = []
    for t in ts2:
        if t['n'] > 0 and base[t['rep']]:
            costs.append(((t['wall'] - t['lg']) - np.mean(base[t['rep']])) / t['n'] / 1e3)
    ra = sum(t['ringall'] for t in ts2) or 1
    irq = np.sum([t['irq'] for t in ts2], axis=0) / ra
    # irq order: LOC0 LOC1 RES0 RES1 CAL0 CAL1 IWI0 IWI1
    g = np.array(sm[m]['gap']) / 1e3
    ovr = sum(t['ovr'] for t in ts2) / max(n, 1)
    s = f"{m:24s} {rate:9.3f} {P(iv,10):6.0f}/{P(iv,50):6.0f}/{P(iv,90):6.0f} {ovr:7.2f} | "
    s += f"{P(costs,50):7.2f} [{P(costs,25):6.2f},{P(costs,75):6.2f}] ({P(costs,10):6.2f},{P(costs,90):6.2f}) | " if costs else " "*41 + "| "
    s += f"{P(g,10):5.1f}/{P(g,50):5.1f}/{P(g,90):5.1f} {len(g)/max(n,1):5.2f} {P(np.array(sm[m]['hd'])/1e3,50):5.2f} {P(np.array(sm[m]['pre'])/1e3,50):5.2f} {P(np.array(sm[m]['post'])/1e3,50):5.2f} | "
    s += f"{irq[1]:.2f} {irq[3]:.2f} {irq[5]:.2f} {irq[7]:.2f} ; {irq[0]:.2f} {irq[2]:.2f} {irq[4]:.2f} {irq[6]:.2f}"
    print(s)
# baseline non-sample gaps
gaps_none = [t['ngap'] for t in tr['none'] if t]
print("baseline: gaps>300ns per trial median", np.median(gaps_none), "wall ms median", np.median([t['wall'] for t in tr['none']])/1e6,
      "spread of baseline (max-min)/median per rep, median:", np.median([ (max(v)-min(v))/np.mean(v) for v in base.values() if len(v)>1]))
for m, (r, s) in rt.items():
    r = np.array(r)/1e3; s = np.array(s)/1e3
    print(f"RTT {m:14s} n={len(r):6d} rtt p10/50/90/99 = {P(r,10):.1f}/{P(r,50):.1f}/{P(r,90):.1f}/{P(r,99):.1f} us; send syscall p50/90 = {P(s,50):.1f}/{P(s,90):.1f} us")
    # per-rep medians spread
    reps = collections.defaultdict(list)
print("depth median:", {m: int(np.median(v["depth"])) for m, v in sm.items() if len(v["depth"])})
try:
    gp = collections.defaultdict(list)
    for line in open(f"{d}/gaps.tsv"):
        f = line.split('\t'); gp[f[1]].append(float(f[2])/1e3)
    for m, g in gp.items():
        g = np.array(g); ntr = len([t for t in tr[m] if t])
        h = g[(g > 3)]
        print(f"non-sample gaps {m:24s} per trial {len(g)/ntr:6.1f}  >3us per trial {len(h)/ntr:6.1f}  >3us p10/50/90 = {P(h,10):.1f}/{P(h,50):.1f}/{P(h,90):.1f} us; all p50 {P(g,50):.2f}")
except FileNotFoundError: pass
