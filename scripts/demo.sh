#!/usr/bin/env bash
# demo.sh -- what `make demo` runs: the Strata story on a real Slurm 24.11 test
# cluster and a real Postgres, end to end, in a few minutes. Safe to re-run
# (the test cluster is reset each time).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
export PATH=/usr/local/go/bin:$PATH
STRATA=${STRATA:-$PWD/bin/strata}
# Pollux workload 1 and its scaling curves, kept in the repository (sources
# and license: sim/testdata/README.md).
TRACES=${TRACES:-$PWD/sim/testdata}
[ -x "$STRATA" ] || { echo "demo.sh: $STRATA is missing: run make demo (it builds it)" >&2; exit 1; }
[ -f "$TRACES/pollux_workload1.csv" ] || { echo "demo.sh: $TRACES/pollux_workload1.csv is missing; set TRACES=DIR" >&2; exit 1; }

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "1. Test bed: a throwaway Postgres and a Slurm 24.11 cluster (2 nodes x 4 GPUs, slurmrestd + JWT)"
echo "   (installs what is missing with apt-get: debootstrap, PostgreSQL, curl, jq, gcc; not the browser, which only make test uses)"
STRATA_NO_BROWSER=${STRATA_NO_BROWSER:-1} "$HERE/testbed.sh" up
set -a; . "$("$HERE/testbed.sh" env)"; set +a
# A fresh database per demo run, so that re-runs do not pile up.
psql -q "$STRATA_TEST_DATABASE" -c 'DROP DATABASE IF EXISTS strata_demo' -c 'CREATE DATABASE strata_demo'
export STRATA_DATABASE_URL=${STRATA_TEST_DATABASE/\/strata_test/\/strata_demo}
slurm() { "$HERE/slurm-test-cluster.sh" exec "$@"; }
# sbatch as a plain user; jobs run in /tmp (the caller's directory does not exist in the chroot)
sb() { local u=$1; shift; slurm runuser -u "$u" -- sbatch --parsable -D /tmp -o /dev/null "$@"; }
slurm sinfo -N -o '%N %T %c %m %G'
run "$STRATA" db migrate

say "2. Users submit training jobs: the first 10 jobs of Pollux workload 1, as hinted sbatch jobs"
echo "   (model and batch from the trace, iterations cut ~60x so that each job is small; the GPU"
echo "    range 1..request is what the user allows Strata to choose in; alice and bob alternate."
echo "    Each job sleeps as long as its hint's modelled run on the GPUs it gets, so the plan's"
echo "    durations are the jobs' real ones.)"
i=0; ids=(); names=(); users=()
while IFS=, read -r id name submit dur gpus nodes model batch iters rest; do
  [ "$id" = job_id ] && continue
  i=$((i + 1)); [ $i -le 10 ] || break
  user=alice; [ $((i % 2)) = 0 ] && user=bob
  g=$(( gpus > 4 ? 4 : gpus ))
  secs=$(( dur / 60 < 15 ? 15 : (dur / 60 > 90 ? 90 : dur / 60) ))
  hint="strata: model=$model batch=$batch iters=$(( iters * secs / dur > 0 ? iters * secs / dur : 1 )) gpus=1-$g"
  # "1) sleep 104;; 2) sleep 74;; *) sleep 51;;": the modelled run at each GPU count
  runs=$("$STRATA" hint check --json "$hint" | jq -r '(.modelled_runs[-1].seconds | ceil) as $most
    | [.modelled_runs[] | "\(.gpus)) sleep \(.seconds | ceil);;"] | join(" ") + " *) sleep \($most);;"')
  jid=$(sb "$user" -J "$name" --gres="gpu:$g" -t 30 --comment="$hint" \
    --wrap="case \${SLURM_GPUS_ON_NODE:-1} in $runs esac")
  ids+=("${jid%%;*}"); names+=("$name"); users+=("$user")
done < "$TRACES/pollux_workload1.csv"
sb bob -J plain-2gpu --gres=gpu:2 -t 20 --wrap='sleep 30' >/dev/null
sb alice -J typo-job --gres=gpu:2 -t 20 --comment='strata: model=resnet50 gpus=4-2' --wrap='sleep 30' >/dev/null
sb bob -J keep-mine --gres=gpu:2 -t 20 --comment='strata: model=vgg16 batch=32 iters=500 gpus=1-2 rewrite=no' --wrap='sleep 30' >/dev/null
sleep 2
slurm squeue -o '%.4i %.16j %.6u %.3t %.10b %.9Q %R'

say "3. strata queue: the queue as Strata reads it through slurmrestd, hints parsed (a typo is shown, never fatal)"
run "$STRATA" queue
run "$STRATA" queue --start -u alice
run "$STRATA" hint check 'strata: model=resnet50 gpus=4-2' || true

say "4. strata run (shadow, the default): one cycle planned with SMD and recorded; nothing written"
run "$STRATA" run --cycles 1 --metrics-listen ''

say "5. strata run --enforce: three cycles, 5 s apart; pending jobs get their planned GPUs and priority"
run "$STRATA" run --enforce --cycles 3 --interval 5s --metrics-listen ''
slurm squeue -o '%.4i %.16j %.6u %.3t %.10b %.9Q %R'
run "$STRATA" queue -t PD   # DECISION and START: what Strata wrote to each job's admin comment

say "6. strata explain: what Strata decided for a pending job, when and why"
# a pending job Strata wrote to (DECISION is column 8 of queue -P), a deferred one if any
pick=$("$STRATA" queue -P -n -t PD | awk -F'|' '$8 ~ /deferred/ {print $1; exit}')
[ -n "$pick" ] || pick=$("$STRATA" queue -P -n -t PD | awk -F'|' '$8 != "-" {print $1; exit}')
if [ -n "$pick" ]; then
  slurm scontrol show job "$pick" | grep -E 'JobName|JobState|Priority|TresPerNode|AdminComment'
  run "$STRATA" explain "$pick"
  echo "   What its owner sees without a database role (the short form, from Slurm's record):"
  run env -u STRATA_DATABASE_URL "$STRATA" explain "$pick"
else
  echo "   (every job has started already: nothing pending to explain)"
fi

say "7. GPU telemetry: a recorded DCGM sample stream replayed into Postgres, attributed to jobs"
echo "   (the test cluster has no real GPUs: the recording's 2 nodes x 4 GPUs become node1 and node2,"
echo "    and its four allocations become the demo's first four jobs, ${ids[*]:0:4}; the second one"
echo "    stalls on input for two minutes, so its GPUs draw power at 2 % utilization: idle energy)"
rec=/tmp/strata-demo-recording.jsonl sched=/tmp/strata-demo-schedule.json
sed -e 's/"host":"gpu-a"/"host":"node1"/' -e 's/"host":"gpu-b"/"host":"node2"/' \
  dcgm/testdata/recording-stalled.jsonl > "$rec"
jq --argjson ids "[${ids[0]},${ids[1]},${ids[2]},${ids[3]}]" \
  '.jobs |= [range(length) as $i | .[$i] + {job: $ids[$i], user: $ARGS.positional[$i],
    name: $ARGS.positional[4 + $i]} | del(.account)
    | .allocs |= map(.Node |= if . == "gpu-a" then "node1" else "node2" end)]' \
  --args "${users[@]:0:4}" "${names[@]:0:4}" < dcgm/testdata/schedule.json > "$sched"
run "$STRATA" collect --source replay --replay-file "$rec" --schedule "$sched" --replay-to-now \
  --spool-file "$(mktemp -u /tmp/strata-demo-spool.XXXX)" --metrics-listen ''

say "8. Energy reports for admins: who used how much GPU energy, and how much of it was idle"
run "$STRATA" report energy --by user -S now-7days
run "$STRATA" report energy --by job -S now-7days --format JobID,User,GPUHours,Energy,EnergyRaw,IdleEnergy,IdlePct
run "$STRATA" report decisions -S now-1hour

say "9. The same policies on a real public trace: Pollux workload 1 (160 jobs) on 16 nodes x 4 T4"
run "$STRATA" simulate --trace "$TRACES/pollux_workload1.csv" \
  --scaling "$TRACES/pollux_scaling.csv" \
  --cluster 16x4:t4 --policy fifo,tiresias,optimus,smd --interval 60s
echo "   (docs/evaluation.md compares all six workloads with the published figures; make evaluate)"

say "10. The web page (read-only, localhost): strata serve"
"$STRATA" serve --listen 127.0.0.1:8080 >/tmp/strata-demo-serve.log 2>&1 &
srv=$!
trap 'kill "$srv" 2>/dev/null || true' EXIT   # also when a step below fails
for _ in $(seq 1 50); do curl -fs -o /dev/null http://127.0.0.1:8080/ && break; sleep 0.1; done
url="http://127.0.0.1:8080/api/energy?by=user&start=now-7days"
printf '$ curl -fs "%s" | jq .\n' "$url"   # the whole JSON document, never cut
curl -fs "$url" | jq .
kill "$srv" 2>/dev/null || true
# One env file with everything the commands above used: the bed's slurmrestd and the demo's database.
envf=/tmp/strata-demo.env
(umask 077; { cat "$("$HERE/testbed.sh" env)"; echo "STRATA_DATABASE_URL=$STRATA_DATABASE_URL"; } > "$envf")
echo "   Run it yourself: set -a; . $envf; set +a; bin/strata serve, then open http://127.0.0.1:8080/"

say "Done. The test bed keeps running for you to explore: set -a; . $envf; set +a (slurmrestd and the demo database); stop it with: make testbed-down"
