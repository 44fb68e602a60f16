#!/usr/bin/env bash
# bench-queue.sh -- the whole plan cycle at site scale (make bench-queue;
# docs/evaluation.md § Scale): a test bed of its own, BENCH_JOBS pending
# jobs, then `strata run --enforce` for two cycles: the first reads every
# job (the first read is always full), the second is incremental on a
# queue of 2,000 jobs or more (the shipped default, --slurm-incremental-above;
# BENCH_FULL_READ_EVERY sets --slurm-full-read-every instead). Prints one
# JSON object as its last line.
#
# The bed: BENCH_NODES logical nodes (default 8) of 4 GPUs, partitions gpu
# (all), gpua/gpub (halves), p1/p2 (halves) and p3 (all);
# MaxJobCount raised to fit; SchedulerParameters=defer (slurmctld does not
# try to start each job as it is submitted; the scheduler and backfill
# still run on their timers). One job per node holds its GPUs, so every
# benchmark job stays pending.
# The jobs: submitted over slurmrestd (POST /job/submit, one curl process,
# 4 at a time: about 200 a second against 25–45 ms per sbatch), by root,
# alice and bob, in rotating partitions (some listing two), 1–4 GPUs, half
# of them with a hint (strata: model=… gpus=…), one in 200 held, and
# BENCH_ARRAYS job arrays of 10 tasks (counted in BENCH_JOBS as one job each).
#
# Environment: BENCH_JOBS (10000), BENCH_NODES (8), BENCH_ARRAYS (5),
#   BENCH_TESTBED (bench-queue: the STRATA_TESTBED instance, destroyed at the
#   end unless BENCH_KEEP=1), BENCH_OUT (a temporary folder: logs, sdiag
#   answers), STRATA_BIN (default: built into BENCH_OUT),
#   BENCH_FULL_READ_EVERY (--slurm-full-read-every; default none: the shipped
#   defaults, incremental reads from 2,000 jobs), BENCH_TIMEOUT (--slurm-timeout, 600s: a full
#   GET /jobs of 30,000 jobs takes longer than the default 15 s).
# JSON fields: jobs, pending (pending jobs in the snapshot), nodes,
#   partitions, submit_s; of the first (full) cycle: cycle_s, snapshot_s,
#   plan_s, write_s, audit_s, response_mib, rpc {calls, total_s, by_type};
#   incremental {the same, and reread: jobs read one by one}; peak_rss_mib
#   (the strata process, both cycles); squeue_rpc (one `squeue` of the same
#   queue: calls, total_s); load (1-minute load average at the start).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
JOBS=${BENCH_JOBS:-10000}
NODES=${BENCH_NODES:-8}
ARRAYS=${BENCH_ARRAYS:-5}
NAME=${BENCH_TESTBED:-bench-queue}
EVERY=${BENCH_FULL_READ_EVERY:-}
TIMEOUT=${BENCH_TIMEOUT:-600s}
case "$JOBS$NODES$ARRAYS" in *[!0-9]*) echo "bench-queue: BENCH_JOBS, BENCH_NODES and BENCH_ARRAYS: whole numbers" >&2; exit 2 ;; esac
[ "$NODES" -ge 2 ] || { echo "bench-queue: BENCH_NODES must be 2 or more" >&2; exit 2; }
need=""
command -v jq >/dev/null || need="$need jq"
command -v curl >/dev/null || need="$need curl"
[ -x /usr/bin/time ] || need="$need time"
if [ -n "$need" ]; then   # a fresh machine: testbed.sh's deps.sh does not install these
  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need; } >/tmp/bench-queue-apt.log 2>&1 ||
    { echo "bench-queue: cannot install$need with apt-get (log: /tmp/bench-queue-apt.log)" >&2; exit 1; }
fi
OUT=${BENCH_OUT:-$(mktemp -d /tmp/bench-queue.XXXXXX)}
mkdir -p "$OUT"
say() { printf '[%s] bench-queue: %s\n' "$(date +%T)" "$*" >&2; }
export PATH=/usr/local/go/bin:$PATH
STRATA=${STRATA_BIN:-}
if [ -z "$STRATA" ]; then
  go build -o "$OUT/strata" ./cmd/strata
  STRATA=$OUT/strata
fi

export STRATA_TESTBED=$NAME
cleanup() {
  if [ "${BENCH_KEEP:-0}" = 1 ]; then
    say "keeping the bed (STRATA_TESTBED=$NAME scripts/testbed.sh destroy)"
  else
    "$HERE/testbed.sh" destroy >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
half=$((NODES / 2))
say "bed $NAME: $NODES nodes, MaxJobCount $((JOBS + ARRAYS * 10 + NODES + 1000)); logs in $OUT"
SLURM_TEST_NODES=$NODES SLURM_TEST_PARTITIONS="p1=node[1-$half] p2=node[$((half + 1))-$NODES] p3=node[1-$NODES]" \
  SLURM_TEST_CONF_EXTRA="MaxJobCount=$((JOBS + ARRAYS * 10 + NODES + 1000))
SchedulerParameters=defer" "$HERE/testbed.sh" up >"$OUT/testbed-up.log" 2>&1 ||
  { tail -20 "$OUT/testbed-up.log" >&2; exit 1; }
ENVF=$("$HERE/testbed.sh" env)
# The bed's variables stay out of this shell's environment except where
# passed (a slurmctld started with SLURM_JWT set dies: testbed.sh's notes).
REST=$(sed -n 's/^SLURM_REST_URL=//p' "$ENVF")
DBURL=$(sed -n 's/^STRATA_TEST_DATABASE=//p' "$ENVF")
DIR=$(sed -n 's/^SLURM_TEST_DIR=//p' "$ENVF")
JWT=$(sed -n 's/^SLURM_JWT=//p' "$ENVF")
sx() { SLURM_TEST_DIR=$DIR "$HERE/slurm-test-cluster.sh" exec "$@"; }
tok() { SLURM_TEST_USER=$1 "$HERE/slurm-test-cluster.sh" token "$DIR"; }
load=$(cut -d' ' -f1 /proc/loadavg)

say "blockers: one job per node holds its 4 GPUs"
for n in $(seq 1 "$NODES"); do sx sbatch -Q -w "node$n" --gres=gpu:4 -J blocker --wrap='sleep 86400' >/dev/null; done
sx scontrol schedule >/dev/null 2>&1 || true
for _ in $(seq 1 120); do
  [ "$(sx squeue -h -t R -n blocker | wc -l)" -ge "$NODES" ] && break; sleep 0.5
done

say "submitting $JOBS jobs over slurmrestd"
declare -A TOK=([root]=$JWT [alice]=$(tok alice) [bob]=$(tok bob))
cfg=$OUT/submit.curl
# One curl config block per job (awk: a shell loop takes minutes at 30,000).
# In a curl config string \ and " are escaped, hence \\n and \" below.
awk -v jobs="$JOBS" -v arrays="$ARRAYS" -v rest="$REST" -v troot="${TOK[root]}" -v talice="${TOK[alice]}" -v tbob="${TOK[bob]}" 'BEGIN {
  split("root alice bob", users, " "); tok["root"] = troot; tok["alice"] = talice; tok["bob"] = tbob
  np = split("gpu gpua gpub p1 p2 p3 gpua,gpub p1,p2", parts, " ")
  nm = split("resnet50 vgg16 bert gnmt alexnet", models, " ")
  for (i = 1; i <= jobs; i++) {
    user = users[i % 3 + 1]; extra = ""
    if (i % 2 == 0) extra = extra ",\\\"comment\\\":\\\"strata: model=" models[int(i / 2) % nm + 1] " gpus=1-4\\\""
    if (i % 200 == 7) extra = extra ",\\\"hold\\\":true"
    if (i <= arrays) extra = extra ",\\\"array\\\":\\\"1-10\\\""
    if (i > 1) print "next"
    printf "url = \"%s/slurm/v0.0.42/job/submit\"\n", rest
    print "header = \"Content-Type: application/json\""
    printf "header = \"X-SLURM-USER-NAME: %s\"\nheader = \"X-SLURM-USER-TOKEN: %s\"\n", user, tok[user]
    printf "data = \"{\\\"job\\\":{\\\"name\\\":\\\"bq-%d\\\",\\\"partition\\\":\\\"%s\\\",\\\"tres_per_node\\\":\\\"gres/gpu:%d\\\",", i, parts[i % np + 1], 1 + i % 4
    printf "\\\"time_limit\\\":%d,\\\"current_working_directory\\\":\\\"/tmp\\\",\\\"standard_output\\\":\\\"/dev/null\\\",", 60 + i % 600
    printf "\\\"environment\\\":[\\\"PATH=/bin:/usr/bin\\\"],\\\"script\\\":\\\"#!/bin/sh\\\\nsleep 600\\\\n\\\"%s}}\"\n", extra
    print "output = \"/dev/null\""
    print "write-out = \"%{http_code}\\n\""
  }
}' >"$cfg"
t0=$(date +%s%N)
curl -s --no-progress-meter --parallel --parallel-max 4 -K "$cfg" >"$OUT/submit.codes"
submit_s=$(( ($(date +%s%N) - t0) / 1000000 ))
rm -f "$cfg"   # it holds the tokens
ok=$(grep -c '^200$' "$OUT/submit.codes" || true)
say "submitted $ok of $JOBS in $((submit_s / 1000)).$(printf %03d $((submit_s % 1000))) s"
[ "$ok" = "$JOBS" ] || { sort "$OUT/submit.codes" | uniq -c >&2; echo "bench-queue: $((JOBS - ok)) submissions failed" >&2; exit 1; }

# sdiag's RPC statistics as {calls, total_s, by_type}, leaving out what
# is not a client's call (node registrations, pings, sdiag itself).
rpcs() {
  sx sdiag --json | jq -c '[.statistics.rpcs_by_message_type[]
      | select(.message_type | test("^(MESSAGE_NODE_REGISTRATION_STATUS|REQUEST_PING|REQUEST_STATS_INFO|MESSAGE_EPILOG_COMPLETE|REQUEST_COMPLETE_BATCH_SCRIPT)$") | not)]
    | {calls: (map(.count) | add // 0), total_s: ((map(.total_time) | add // 0) / 1e6 * 1000 | round / 1000),
       by_type: (map({key: .message_type, value: {calls: .count, total_s: (.total_time / 1e3 | round / 1e3)}}) | from_entries)}'
}
sx sdiag --reset >/dev/null
sx squeue >/dev/null
squeue_rpc=$(rpcs)

"$STRATA" db migrate --database-url "$DBURL" >"$OUT/migrate.log" 2>&1
say "strata run --enforce, 2 cycles (the second with incremental reads)"
sx sdiag --reset >/dev/null
SLURM_JWT=$JWT /usr/bin/time -f '%M' -o "$OUT/rss" "$STRATA" --log-level debug --log-format json run --enforce --policy smd \
  --cycles 2 --interval 15s --metrics-listen '' --slurm-url "$REST" --slurm-user root --slurm-timeout "$TIMEOUT" \
  ${EVERY:+--slurm-full-read-every "$EVERY"} --database-url "$DBURL" >"$OUT/strata.log" 2>&1 &
pid=$!
for _ in $(seq 1 3000); do
  grep -q '"cycle stages"' "$OUT/strata.log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
rpc1=$(rpcs)
sx sdiag --reset >/dev/null
wait "$pid" || { tail -20 "$OUT/strata.log" >&2; echo "bench-queue: strata run failed" >&2; exit 1; }
rpc2=$(rpcs)

# Per cycle: the daemon's stage times, the snapshot's read, the cycle line.
cycle() { # $1: 0 or 1
  jq -sc --argjson n "$1" --argjson rpc "$2" '
    def r3: . * 1000 | round / 1000;
    [.[] | select(.message == "cycle stages")][$n] as $st
    | [.[] | select(.message == "snapshot read")][$n] as $rd
    | [.[] | select(.message == "cycle")][$n] as $cy
    | {cycle_s: (($st.snapshot_ms + $st.plan_ms + $st.write_ms + $st.audit_ms) / 1000 | r3),
       snapshot_s: ($st.snapshot_ms / 1000 | r3), plan_s: ($st.plan_ms / 1000 | r3), write_s: ($st.write_ms / 1000 | r3),
       audit_s: ($st.audit_ms / 1000 | r3), response_mib: (($rd.jobs_bytes / 1048576 * 100 | round) / 100),
       full_read: $rd.jobs_full_read, reread: $rd.jobs_reread, pending: $cy.pending,
       applied: ($cy.applied // 0), rpc: $rpc}' "$OUT/strata.log"
}
first=$(cycle 0 "$rpc1")
second=$(cycle 1 "$rpc2")
rss_kib=$(tail -1 "$OUT/rss")
jq -nc --argjson jobs "$JOBS" --argjson nodes "$NODES" --argjson submit_ms "$submit_s" \
  --argjson first "$first" --argjson second "$second" --argjson rss "$rss_kib" \
  --argjson squeue "$squeue_rpc" --argjson load "$load" \
  '{jobs: $jobs, pending: $first.pending, nodes: $nodes, partitions: 6, submit_s: ($submit_ms / 1000)}
   + ($first | del(.pending, .reread, .full_read))
   + {incremental: ($second | del(.pending, .full_read)), peak_rss_mib: (($rss / 1024 * 10 | round) / 10),
      squeue_rpc: {calls: $squeue.calls, total_s: $squeue.total_s}, load: $load}'
