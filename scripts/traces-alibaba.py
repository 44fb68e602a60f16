#!/usr/bin/env python3
"""traces-alibaba.py RAW OUT -- the Alibaba 2023 slice of traces/ from its source.

RAW is alibaba/clusterdata's cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv
(commit 7a6c496e4f4b6ce6150be8f881cb051bf2abff42); OUT gets the normalised slice
traces/README.md describes: the tasks created between source times 8,962,274 s and
11,231,874 s, without tasks never scheduled (Pending) or created before source day 100,
in submission order, with Strata's trace columns. scripts/fetch-traces.sh runs it and
checks OUT's SHA-256 against traces/SHA256SUMS.
"""
import csv
import sys

LO, HI = 8962274, 11231874
DAY100 = 100 * 86400
STATES = {"Running": "RUNNING", "Failed": "FAILED", "Succeeded": "COMPLETED"}
COLUMNS = ("job_id,user,submit_time,duration_s,gpus,nodes,cpus,state,job_name,queue_s,gpu_milli,"
           "gpu_frac,gpu_spec,qos,memory_mib,censored,orig_submit_time").split(",")


def num(x):
    """A number as the slice writes it: integers without a point."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def main(raw, out):
    with open(raw, newline="") as f:
        rows = list(csv.DictReader(f))
    end = max(int(r["deletion_time"]) for r in rows)
    keep = [r for r in rows
            if r["pod_phase"] != "Pending" and int(r["creation_time"]) >= DAY100
            and LO <= int(r["creation_time"]) <= HI]
    keep.sort(key=lambda r: int(r["creation_time"]))
    t0 = int(keep[0]["creation_time"])
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(COLUMNS)
        for i, r in enumerate(keep):
            created, sched, deleted = int(r["creation_time"]), int(r["scheduled_time"]), int(r["deletion_time"])
            gpus, milli = int(r["num_gpu"]), int(r["gpu_milli"])
            frac = milli / 1000 if gpus == 1 else gpus
            w.writerow([i, "", created - t0, deleted - sched, gpus, 1, num(int(r["cpu_milli"]) / 1000),
                        STATES[r["pod_phase"]], r["name"], sched - created, milli, num(frac), r["gpu_spec"],
                        r["qos"], r["memory_mib"], int(deleted == end), created])


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: traces-alibaba.py RAW OUT")
    main(sys.argv[1], sys.argv[2])
