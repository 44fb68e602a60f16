"""The job side of Strata's preemption for PyTorch (docs/preemption.md).

Submit with `sbatch --requeue` and a hint with `preempt=yes` (and
`signal=USR1`, the default). When Strata sends the batch shell SIGUSR1, the
handler below only sets a flag; the training loop saves a checkpoint at the
next step boundary, requeues the job and exits. Slurm restarts the job later
(same job id) on the GPU count Strata wrote, and `resume()` continues from
the newest checkpoint: the world size may differ, so the data sampler and
the learning-rate schedule are rebuilt for it.

Launch under the batch shell so that the shell receives the signal and
forwards it, e.g. in the sbatch script:

    trap 'kill -USR1 $child' USR1
    srun python train.py & child=$!; wait $child; wait $child
"""

import os
import signal
import subprocess

import torch

CKPT_DIR = os.environ.get("CKPT_DIR", f"/shared/ckpt/{os.environ.get('SLURM_JOB_ID', 'local')}")
stop_requested = False


def _on_signal(signum, frame):  # keep the handler tiny: the loop does the work
    global stop_requested
    stop_requested = True


signal.signal(signal.SIGUSR1, _on_signal)


def newest_checkpoint():
    if not os.path.isdir(CKPT_DIR):
        return None
    files = sorted(f for f in os.listdir(CKPT_DIR) if f.endswith(".pt"))
    return os.path.join(CKPT_DIR, files[-1]) if files else None


def resume(model, optimizer):
    """Load the newest checkpoint, if any; return the step to continue from."""
    path = newest_checkpoint()
    if path is None:
        return 0
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    return state["step"]


def save_and_requeue(model, optimizer, step, rank):
    if rank == 0:
        os.makedirs(CKPT_DIR, exist_ok=True)
        tmp = os.path.join(CKPT_DIR, f".step{step:09d}.pt.tmp")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, tmp)
        os.replace(tmp, os.path.join(CKPT_DIR, f"step{step:09d}.pt"))  # atomic: never a torn checkpoint
        subprocess.run(["scontrol", "requeue", os.environ["SLURM_JOB_ID"]], check=True)
    raise SystemExit(0)


def train(model, optimizer, batches, total_steps, rank=0):
    step = resume(model, optimizer)
    for batch in batches(step):
        if step >= total_steps:
            break
        loss = model(batch).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        # With DDP, agree on stopping (all ranks must save at the same step):
        # flag = torch.tensor(int(stop_requested)); dist.all_reduce(flag, op=dist.ReduceOp.MAX)
        if stop_requested:
            save_and_requeue(model, optimizer, step, rank)
