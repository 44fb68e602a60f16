#!/usr/bin/env bash
# demo.sh -- what `make demo` runs: the Strata story on a real Slurm 24.11 test
# cluster, end to end. Safe to re-run (the test cluster is reset each time).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE/.."
export PATH=/usr/local/go/bin:$PATH
STRATA=${STRATA:-$PWD/bin/strata}
[ -x "$STRATA" ] || { echo "demo.sh: $STRATA is missing: run make demo (it builds it)" >&2; exit 1; }

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "1. Test bed: a throwaway Postgres and a Slurm 24.11 cluster (2 nodes x 4 GPUs, slurmrestd + JWT)"
"$HERE/testbed.sh" up
set -a; . "$("$HERE/testbed.sh" env)"; set +a
slurm() { "$HERE/slurm-test-cluster.sh" exec "$@"; }
slurm sinfo -N -o '%N %T %c %m %G'

say "2. Users submit training jobs with sbatch; some carry strata: hints in --comment"
as() { local u=$1; shift; slurm runuser -u "$u" -- "$@"; }
as alice sbatch -J resnet50-a --gres=gpu:4 -t 30 \
  --comment='strata: model=resnet50 batch=64 epochs=1 samples=200000 gpus=1-4 arch=allreduce' --wrap='sleep 120'
as bob sbatch -J vgg16-ps --gres=gpu:4 -t 30 \
  --comment='strata: model=vgg16 batch=32 iters=3000 gpus=2-4 arch=ps ps=auto' --wrap='sleep 120'
as alice sbatch -J gnmt --gres=gpu:4 -t 30 \
  --comment='my notes strata: model=gnmt batch=128 iters=2000 gpus=1-4' --wrap='sleep 90'
as bob sbatch -J plain-2gpu --gres=gpu:2 -t 20 --wrap='sleep 60'
as alice sbatch -J typo-job --gres=gpu:2 -t 20 --comment='strata: model=resnet50 gpus=4-2' --wrap='sleep 60'
as bob sbatch -J bert-bb --gres=gpu:2 -t 30 \
  --comment='strata: model=bert batch=12 iters=500 gpus=1-4 bb=100G' --wrap='sleep 60'
sleep 2
slurm squeue -o '%.5i %.12j %.6u %.3t %.10b %.9Q %R'

say "3. strata queue: the queue as Strata reads it through slurmrestd, hints parsed"
run "$STRATA" queue

say "4. strata plan --policy smd: shadow mode (the default) shows what it would change"
run "$STRATA" plan --policy smd

say "5. strata plan --policy smd --enforce: rewrite pending jobs' GPU request and priority"
run "$STRATA" plan --policy smd --enforce
slurm squeue -o '%.5i %.12j %.6u %.3t %.10b %.9Q %R'

say "6. A malformed hint never blocks a job; strata hint check tells the user how to fix it"
run "$STRATA" hint check 'strata: model=resnet50 gpus=4-2' || true

say "7. The same policies on a real public trace (Tiresias 60-job sample, 16 x 4 GPUs)"
run "$STRATA" simulate --trace "${SHARED:-$PWD/../shared}/traces/peers/tiresias_60job.csv" \
  --cluster 16x4:t4 --policy fifo,tiresias,smd --interval 60s --seed 1

say "Done. The cluster keeps running; stop it with: make testbed-down"
