#!/bin/bash
# Run one task of the render array again (it was cancelled, or its node died), then the merge.
#
#   examples/slurm/rerun.sh ARRAY_JOB_ID TASK_ID
#
# With the environment submit.sh had (RENDERS, SHARDS, LOOPSMITH). The task is requeued, so it keeps
# the array's variables and renders the same shard into the same folder; the merge waits for it and
# for every other task. Slurm forgets a finished job after MinJobAge (300 s by default); after that,
# queue the task on its own, naming its shard:
#   sbatch --array=TASK_ID examples/slurm/render-presets.sbatch --shard $((TASK_ID + 1))/SHARDS
# (with --split SPLIT after it when the array was queued with SPLIT, and the same batch options).
set -euo pipefail
[[ $# == 2 && $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || { echo "usage: examples/slurm/rerun.sh ARRAY_JOB_ID TASK_ID" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
RENDERS=$(realpath -m -- "${RENDERS:-renders}")
LOOPSMITH=$(realpath -m -- "${LOOPSMITH:-.build/release/loopsmith}")
export RENDERS LOOPSMITH SHARDS=${SHARDS:-4}
task="$1_$2"
scontrol requeue "$task"
# Slurm holds a requeued job back for two minutes unless told otherwise.
scontrol update JobId="$task" StartTime=now
merge=$(sbatch --parsable --dependency="afterok:$task,afterany:$1" --output="$RENDERS/logs/merge-%j.out" "$here/merge.sbatch")
echo "requeued task $task and merge ${merge%%;*}"
