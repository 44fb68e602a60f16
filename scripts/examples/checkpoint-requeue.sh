#!/bin/sh
# checkpoint-requeue.sh -- the job side of Strata's preemption (docs/preemption.md).
#
# A job that checkpoints may let Strata stop it and restart it later, on
# another GPU count within its range: submit it with --requeue and say so in
# the hint. Strata then may send the batch shell SIGUSR1 (or the hint's
# signal=); the trap below saves a checkpoint and requeues the job, which
# keeps its job id and waits pending; Strata rewrites its GPU count and
# Slurm starts it again, and the job resumes from its checkpoint.
#
#SBATCH --requeue
#SBATCH --gres=gpu:4
#SBATCH --comment="strata: model=resnet50 batch=64 epochs=90 gpus=2-4 preempt=yes signal=USR1"
#
# This example "trains" by counting to STEPS, one step a second; replace the
# loop body with your training step and the checkpoint lines with your
# framework's save and load (see pytorch_requeue.py). POSIX sh, so that it
# also runs through `sbatch --wrap`.

STEPS=${STEPS:-15}
ck=${CHECKPOINT:-/tmp/strata-ck.$SLURM_JOB_ID}   # must survive the requeue: shared storage in real use
n=0
if [ -f "$ck" ]; then                             # a restart: resume
	n=$(cat "$ck")
	echo "resumed at $n" >>"$ck.log"
fi
# On the signal: save, requeue (the job's owner may requeue its own job),
# and leave. Slurm restarts the job later with the same id.
trap 'echo "$n" >"$ck"; scontrol requeue "$SLURM_JOB_ID"; exit 0' USR1
while [ "$n" -lt "$STEPS" ]; do
	sleep 1 &
	wait $! # `wait` returns at once when the signal comes, so the trap runs at once
	n=$((n + 1))
done
echo "done n=$n gpus=${SLURM_GPUS_ON_NODE:-?}" >>"$ck.log"
