#!/usr/bin/env python3
"""Renders docs/evaluation.d/accountability/30-site-policy.md from the JSON
of scripts/evaluate-policy.sh: per workload and band, smd's average JCT over
Slurm alone's, the worst user's ratio, and the fairshare error (window_error)
beside Slurm alone's. The reading is 31-site-policy-reading.md, written by hand."""
import json, os, sys
from collections import defaultdict

WINDOW = 6 * 3600  # the simulated site's fairshare half-life


def window_error(rows):
    """The fairshare error while users compete: in each 6-hour window, the
    largest distance of a user's share of the GPU-seconds used from an equal
    share among the users with a job in the system then (submitted, not yet
    ended), averaged over the windows weighted by the GPU-seconds used. Over
    a whole run every user gets the GPU-hours of their own jobs whatever the
    order (no job is resized), so only the timing can show."""
    rows = [x for x in rows if x.get("end_s") is not None and x.get("start_s") is not None]
    if not rows:
        return 0.0
    end = max(x["end_s"] for x in rows)
    num = den = 0.0
    t = 0.0
    while t < end:
        u, present = defaultdict(float), set()
        for x in rows:
            if x["submit_s"] < t + WINDOW and x["end_s"] > t:
                present.add(x["user"])
            lo, hi = max(t, x["start_s"]), min(t + WINDOW, x["end_s"])
            if hi > lo:
                u[x["user"]] += (hi - lo) * (x.get("gpus") or 1)
        used = sum(u.values())
        if used > 0 and len(present) > 1:
            num += used * max(abs(u[k] / used - 1 / len(present)) for k in present)
            den += used
        t += WINDOW
    return num / den if den else 0.0

if sys.argv[1] == "compact":  # compact FILE: job rows replaced by each user's mean JCT (smaller JSON)
    path = sys.argv[2]
    d = json.load(open(path))
    for r in d["results"]:
        per = defaultdict(list)
        rows = r.pop("job_rows", None) or []
        for row in rows:
            if row.get("jct_s") is not None:
                per[row["user"]].append(row["jct_s"])
        r["user_jct_s"] = {u: round(sum(v) / len(v), 1) for u, v in sorted(per.items())}
        r["fs_window_error"] = window_error(rows)
    json.dump(d, open(path, "w"), indent=1, sort_keys=True)
    sys.exit(0)

def fs_error(r):
    """The fairshare error while users compete (window_error, by user); runs
    compacted before it existed: the largest distance of an account's share
    of GPU-hours over the whole run from its equal share."""
    if "fs_window_error" in r:
        return r["fs_window_error"]
    gs = r.get("account_gpu_s") or r.get("user_gpu_s") or {}
    tot = sum(gs.values()) or 1
    return max((abs(v / tot - 1 / len(gs)) for v in gs.values()), default=0)

def averaged(stem, timings):
    """The run stem-i{si}.json averaged over the timings: average JCT, each
    user's average JCT, the fairshare error, and the users' groups."""
    jct, users, fs, groups = [], defaultdict(list), [], {}
    for si in timings:
        r = json.load(open(f"{stem}-i{si}.json"))["results"][0]
        jct.append(r["avg_jct_s"])
        fs.append(fs_error(r))
        for u, x in r["user_jct_s"].items():
            users[u].append(x)
        groups = {u: "QOS high" for u in r.get("qos_high_users") or []}
        groups.update({u: "never hint" for u in r.get("never_hint_users") or []})
    avg = lambda v: sum(v) / len(v)
    return avg(jct), {u: avg(x) for u, x in users.items()}, avg(fs), groups

if sys.argv[1] == "default":  # default IMG OUT "TIMINGS" VARIANT...: the shipped default against issue 31's targets
    img, out, timings, variants = sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]
    label = {"noise": "Slurm alone at 65-69 s (noise)", "default": "default (band 4000, aging 24 h / 4x)",
             "aging1h": "aging 1 h / 8x", "protect": "protect 4", "band8000": "band 8000",
             "early8": "early-starvation-stretch 8"}
#!/usr/bin/env python3
"""Renders docs/evaluation.d/accountability/30-site-policy.md from the JSON
of scripts/evaluate-policy.sh: per workload and band, smd's average JCT over
Slurm alone's, the worst user's ratio, and the fairshare error (window_error)
beside Slurm alone's. The reading is 31-site-policy-reading.md, written by hand."""
import json, os, sys
from collections import defaultdict

WINDOW = 6 * 3600  # the simulated site's fairshare half-life


def window_error(rows):
    """The fairshare error while users compete: in each 6-hour window, the
    largest distance of a user's share of the GPU-seconds used from an equal
    share among the users with a job in the system then (submitted, not yet
    ended), averaged over the windows weighted by the GPU-seconds used. Over
    a whole run every user gets the GPU-hours of their own jobs whatever the
    order (no job is resized), so only the timing can show."""
    rows = [x for x in rows if x.get("end_s") is not None and x.get("start_s") is not None]
    if not rows:
        return 0.0
    end = max(x["end_s"] for x in rows)
    num = den = 0.0
    t = 0.0
    while t < end:
        u, present = defaultdict(float), set()
        for x in rows:
            if x["submit_s"] < t + WINDOW and x["end_s"] > t:
                present.add(x["user"])
            lo, hi = max(t, x["start_s"]), min(t + WINDOW, x["end_s"])
            if hi > lo:
                u[x["user"]] += (hi - lo) * (x.get("gpus") or 1)
        used = sum(u.values())
        if used > 0 and len(present) > 1:
            num += used * max(abs(u[k] / used - 1 / len(present)) for k in present)
            den += used
        t += WINDOW
    return num / den if den else 0.0

if sys.argv[1] == "compact":  # compact FILE: job rows replaced by each user's mean JCT (smaller JSON)
    path = sys.argv[2]
    d = json.load(open(path))
    for r in d["results"]:
        per = defaultdict(list)
        rows = r.pop("job_rows", None) or []
        for row in rows:
            if row.get("jct_s") is not None:
                per[row["user"]].append(row["jct_s"])
        r["user_jct_s"] = {u: round(sum(v) / len(v), 1) for u, v in sorted(per.items())}
        r["fs_window_error"] = window_error(rows)
    json.dump(d, open(path, "w"), indent=1, sort_keys=True)
    sys.exit(0)

def fs_error(r):
    """The fairshare error while users compete (window_error, by user); runs
    compacted before it existed: the largest distance of an account's share
    of GPU-hours over the whole run from its equal share."""
    if "fs_window_error" in r:
        return r["fs_window_error"]
    gs = r.get("account_gpu_s") or r.get("user_gpu_s") or {}
    tot = sum(gs.values()) or 1
    return max((abs(v / tot - 1 / len(gs)) for v in gs.values()), default=0)

if sys.argv[1] == "default":  # default IMG OUT "TIMINGS" VARIANT...: the shipped default against issue 31's targets
    img, out, timings, variants = sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]
    label = {"noise": "Slurm alone at 65-69 s (noise)", "default": "default (band 4000, aging 24 h / 4x)",
             "aging1h": "aging 1 h / 8x", "protect": "protect 4", "band8000": "band 8000",
             "early8": "early-starvation-stretch 8"}
    def run(stem, v):
        """The run of variant v averaged over the timings (averaged)."""
        return averaged(f"{stem}-{v}", timings)[:3]
    doc = ["### The shipped default against the targets (issue 31)", "",
           "Generated by `scripts/evaluate-policy.sh`: the site of the table above (classic fairshare, every user",
           "an account), and fair tree (`--fair-tree`) over 3 accounts of equal shares (`--accounts 3`, the users",
           "dealt to them in turn; the error is per user, in 6-hour windows as above), Pollux workloads 1-6, seeds 1 and 2.",
           f"In one run a user's ratio moves by up to 1.7x when Slurm's `sched_interval` is 61 s instead of 60 s",
           f"(Slurm alone against itself), so every configuration runs at {len(timings)} timings",
           f"(`sched_interval` {timings[0]}-{timings[-1]} s) and each user's average JCT is averaged over them. Each cell:",
           "mean over the 12 runs of smd's (or the noise run's) average JCT over Slurm alone's / the worst",
           "user's ratio, max over the runs / runs with a user above 1.10 / the fairshare error minus Slurm",
           "alone's (pp), max over the runs. The noise column is Slurm alone at five other timings (65-69 s)",
           "against Slurm alone: how far the averaged per-user ratios still move when nothing but timing changes.", "",
           "| fairshare | Slurm alone's fairshare error (pp), mean | " + " | ".join(label.get(v, v) for v in variants) + " |",
           "|---|---|" + "---|" * len(variants)]
    for model, name in (("classic", "classic, 10 accounts"), ("fairtree", "fair tree, 3 accounts")):
        cells, base_fs = [], []
        for v in variants:
            ratio, worst, fsd = [], [], []
            for w in range(1, 7):
                for seed in (1, 2):
                    stem = os.path.join(img, f"{model}-w{w}-s{seed}")
                    if not os.path.exists(f"{stem}-slurm-i{timings[0]}.json"):
                        continue
                    sj, su, sfs = run(stem, "slurm")
                    j, u, fs = run(stem, v)
                    if v == variants[0]:
                        base_fs.append(100 * sfs)
                    ratio.append(j / sj)
                    worst.append(max(u[k] / su[k] for k in u if k in su and su[k] > 0))
                    fsd.append(100 * (fs - sfs))
            cells.append(f"{sum(ratio) / len(ratio):.2f} / {max(worst):.2f} / {sum(x > 1.10 for x in worst)} of {len(worst)} / {max(fsd):+.1f}")
        doc.append(f"| {name} | {sum(base_fs) / len(base_fs):.1f} | " + " | ".join(cells) + " |")
    doc += ["", "Targets: smd / Slurm alone ≤ 0.6 on average, every user ≤ 1.10, fairshare error within 2 points of",
            "Slurm alone's.", ""]
    open(out, "w").write("\n".join(doc))
    sys.exit(0)

# bands IMG OUT "TIMINGS" BAND...: the band table, every run averaged over the timings
assert sys.argv[1] == "bands", "usage: evaluate-policy.py compact FILE | default IMG OUT TIMINGS VARIANT... | bands IMG OUT TIMINGS BAND..."
img, out, timings, bands = sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]

def load(stem):
    return averaged(stem, timings)

rows, summary = [], defaultdict(lambda: {"ratio": [], "worst": [], "fsd": []})
kinds = defaultdict(list)  # (band, group) -> each user's ratio
names = [(f"pollux_workload{w}", str(w)) for w in range(1, 7)] + [("alibaba", "Alibaba")]
for stem, w in names:
    for seed in (1, 2):
        base = os.path.join(img, f"{stem}-s{seed}")
        if not os.path.exists(f"{base}-slurm-i{timings[0]}.json"):
            continue
        sj, su, sfs, _ = load(base + "-slurm")
        cells = []
        for b in bands:
            j, u, fs, groups = load(f"{base}-{b}")
            for k in u:
                if k in su and su[k] > 0:
                    kinds[(b, groups.get(k, "others"))].append(u[k] / su[k])
            worst = max(u[k] / su[k] for k in u if k in su and su[k] > 0)
            cells.append(f"{j / sj:.2f} / {worst:.2f} / {100 * (fs - sfs):+.1f}")
            s = summary[b]
            s["ratio"].append(j / sj); s["worst"].append(worst); s["fsd"].append(100 * (fs - sfs))
        rows.append(f"| {w} | {seed} | {sj:,.0f} | {100 * sfs:.1f} | " + " | ".join(cells) + " |")

name = lambda b: "absolute" if b == "absolute" else f"band {b}"
head = ["| workload | seed | Slurm alone JCT (s) | Slurm alone fairshare error (pp) | " + " | ".join(name(b) for b in bands) + " |",
        "|---|---|---|---|" + "---|" * len(bands)]
mean = lambda v: sum(v) / len(v) if v else float("nan")
summ = ["| | " + " | ".join(name(b) for b in bands) + " |", "|---|" + "---|" * len(bands),
        "| smd / Slurm alone, mean | " + " | ".join(f"{mean(summary[b]['ratio']):.2f}" for b in bands) + " |",
        "| worst user's ratio, max | " + " | ".join(f"{max(summary[b]['worst'] or [float('nan')]):.2f}" for b in bands) + " |",
        "| runs with a user above 1.10 | " + " | ".join(f"{sum(x > 1.10 for x in summary[b]['worst'])} of {len(summary[b]['worst'])}" for b in bands) + " |",
        "| smd / Slurm alone, mean of Pollux 1-6 | " + " | ".join(f"{mean(summary[b]['ratio'][:12]):.2f}" for b in bands) + " |",
        "| fairshare error − Slurm alone's (pp), max | " + " | ".join(f"{max(summary[b]['fsd'] or [float('nan')]):+.1f}" for b in bands) + " |"]
grp = ["| users (user-runs) | " + " | ".join(name(b) for b in bands) + " |", "|---|" + "---|" * len(bands)]
for g in ("QOS high", "never hint", "others"):
    n = len(kinds[(bands[0], g)])
    grp.append(f"| {g} ({n}) | " + " | ".join(
        f"{mean(kinds[(b, g)]):.2f} / {max(kinds[(b, g)] or [float('nan')]):.2f} / {sum(x > 1.10 for x in kinds[(b, g)])}"
        for b in bands) + " |")
doc = ["### The site's policy in force (issue 31)", "",
       "Generated by `scripts/evaluate-policy.sh`. Slurm mode, realistic knowledge, 10 users of whom 3 never",
       "write a hint (`--never-hint 0.3`), the site's multifactor priority: age 1000, job size 1000, classic",
       "fairshare 10000 (every user an account of equal shares, usage from the run, half-life 6 h), QOS 10000",
       "for the jobs of 2 of the 10 users (`--qos-high 0.2`); Pollux workloads 1-6 on 16x4:t4 with their",
       "scaling curves and the Alibaba GPU 2023 slice on 3x8:t4 (sizes fixed), seeds 1 and 2, each run at",
       f"{len(timings)} timings of Slurm's scheduler (`--sched-interval` {', '.join(timings)} s) and averaged (each user's",
       "average JCT too). smd writes its order as a nice within ±band",
       "(`[planner] nice-band`) or, last column, as absolute priorities. Each cell: smd's average JCT over",
       "Slurm alone's / the worst user's average JCT over the same user's under Slurm alone / the fairshare",
       "error minus Slurm alone's, in percentage points: in each 6-hour window, the largest distance of a",
       "user's share of the GPU-seconds used from an equal share among the users with a job in the system",
       "then, averaged over the windows by GPU-seconds (over a whole run every user gets the GPU-hours of",
       "their own jobs whatever the order, as no job is resized: only the timing can show).", ""] + head + rows + ["", "Summary over the runs:", ""] + summ + ["",
       "By group of users, each user's average JCT under smd over the same user's under Slurm alone: mean /",
       "max / user-runs above 1.10 (a user in QOS high who never hints counts as never hint):", ""] + grp + [""]
open(out, "w").write("\n".join(doc))
assert sys.argv[1] == "bands", "usage: evaluate-policy.py compact FILE | default IMG OUT TIMINGS VARIANT... | bands IMG OUT TIMINGS BAND..."
img, out, timings, bands = sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5:]

def load(stem):
    return averaged(stem, timings)

rows, summary = [], defaultdict(lambda: {"ratio": [], "worst": [], "fsd": []})
kinds = defaultdict(list)  # (band, group) -> each user's ratio
names = [(f"pollux_workload{w}", str(w)) for w in range(1, 7)] + [("alibaba", "Alibaba")]
for stem, w in names:
    for seed in (1, 2):
        base = os.path.join(img, f"{stem}-s{seed}")
        if not os.path.exists(f"{base}-slurm-i{timings[0]}.json"):
            continue
        sj, su, sfs, _ = load(base + "-slurm")
        cells = []
        for b in bands:
            j, u, fs, groups = load(f"{base}-{b}")
            for k in u:
                if k in su and su[k] > 0:
                    kinds[(b, groups.get(k, "others"))].append(u[k] / su[k])
            worst = max(u[k] / su[k] for k in u if k in su and su[k] > 0)
            cells.append(f"{j / sj:.2f} / {worst:.2f} / {100 * (fs - sfs):+.1f}")
            s = summary[b]
            s["ratio"].append(j / sj); s["worst"].append(worst); s["fsd"].append(100 * (fs - sfs))
        rows.append(f"| {w} | {seed} | {sj:,.0f} | {100 * sfs:.1f} | " + " | ".join(cells) + " |")

name = lambda b: "absolute" if b == "absolute" else f"band {b}"
head = ["| workload | seed | Slurm alone JCT (s) | Slurm alone fairshare error (pp) | " + " | ".join(name(b) for b in bands) + " |",
        "|---|---|---|---|" + "---|" * len(bands)]
mean = lambda v: sum(v) / len(v) if v else float("nan")
summ = ["| | " + " | ".join(name(b) for b in bands) + " |", "|---|" + "---|" * len(bands),
        "| smd / Slurm alone, mean | " + " | ".join(f"{mean(summary[b]['ratio']):.2f}" for b in bands) + " |",
        "| worst user's ratio, max | " + " | ".join(f"{max(summary[b]['worst'] or [float('nan')]):.2f}" for b in bands) + " |",
        "| runs with a user above 1.10 | " + " | ".join(f"{sum(x > 1.10 for x in summary[b]['worst'])} of {len(summary[b]['worst'])}" for b in bands) + " |",
        "| smd / Slurm alone, mean of Pollux 1-6 | " + " | ".join(f"{mean(summary[b]['ratio'][:12]):.2f}" for b in bands) + " |",
        "| fairshare error − Slurm alone's (pp), max | " + " | ".join(f"{max(summary[b]['fsd'] or [float('nan')]):+.1f}" for b in bands) + " |"]
grp = ["| users (user-runs) | " + " | ".join(name(b) for b in bands) + " |", "|---|" + "---|" * len(bands)]
for g in ("QOS high", "never hint", "others"):
    n = len(kinds[(bands[0], g)])
    grp.append(f"| {g} ({n}) | " + " | ".join(
        f"{mean(kinds[(b, g)]):.2f} / {max(kinds[(b, g)] or [float('nan')]):.2f} / {sum(x > 1.10 for x in kinds[(b, g)])}"
        for b in bands) + " |")
doc = ["### The site's policy in force (issue 31)", "",
       "Generated by `scripts/evaluate-policy.sh`. Slurm mode, realistic knowledge, 10 users of whom 3 never",
       "write a hint (`--never-hint 0.3`), the site's multifactor priority: age 1000, job size 1000, classic",
       "fairshare 10000 (every user an account of equal shares, usage from the run, half-life 6 h), QOS 10000",
       "for the jobs of 2 of the 10 users (`--qos-high 0.2`); Pollux workloads 1-6 on 16x4:t4 with their",
       "scaling curves and the Alibaba GPU 2023 slice on 3x8:t4 (sizes fixed), seeds 1 and 2, each run at",
       f"{len(timings)} timings of Slurm's scheduler (`--sched-interval` {', '.join(timings)} s) and averaged (each user's",
       "average JCT too). smd writes its order as a nice within ±band",
       "(`[planner] nice-band`) or, last column, as absolute priorities. Each cell: smd's average JCT over",
       "Slurm alone's / the worst user's average JCT over the same user's under Slurm alone / the fairshare",
       "error minus Slurm alone's, in percentage points: in each 6-hour window, the largest distance of a",
       "user's share of the GPU-seconds used from an equal share among the users with a job in the system",
       "then, averaged over the windows by GPU-seconds (over a whole run every user gets the GPU-hours of",
       "their own jobs whatever the order, as no job is resized: only the timing can show).", ""] + head + rows + ["", "Summary over the runs:", ""] + summ + ["",
       "By group of users, each user's average JCT under smd over the same user's under Slurm alone: mean /",
       "max / user-runs above 1.10 (a user in QOS high who never hints counts as never hint):", ""] + grp + [""]
open(out, "w").write("\n".join(doc))
