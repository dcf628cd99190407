#!/bin/bash
# Queue the render array, then the merge once every task has succeeded.
#
#   examples/slurm/submit.sh [loopsmith batch options...]
#
# The environment says where things are (defaults: the repository root after `make build`):
#   LOOPSMITH  the binary (.build/release/loopsmith)     PRESETS  a folder of presets (presets)
#   RENDERS    shard-0 ... shard-N-1, all/ and logs/ (renders)
#   SHARDS     the array's tasks (4)    CPUS  cores per task (4)    MEM  memory per task (4G)
#   SPLIT      split every preset's frames into SPLIT parts (batch --split): with SPLIT=SHARDS
#              task K renders part K of every preset, and the merge joins the parts (unset: each
#              task renders whole presets, its shard of them)
# Options after the script's name go to `loopsmith batch` in every task (e.g. --size 270x480).
# `make test-cluster` runs this on a one-node Slurm cluster, as the README shows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LOOPSMITH=$(realpath -m -- "${LOOPSMITH:-.build/release/loopsmith}")
PRESETS=$(realpath -m -- "${PRESETS:-presets}")
RENDERS=$(realpath -m -- "${RENDERS:-renders}")
SHARDS=${SHARDS:-4}
export LOOPSMITH PRESETS RENDERS SHARDS
[[ -x $LOOPSMITH ]] || { echo "submit.sh: $LOOPSMITH is not an executable; expected LOOPSMITH=path/to/loopsmith (make build)" >&2; exit 2; }
[[ $SHARDS =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: SHARDS='$SHARDS'; expected a whole number from 1" >&2; exit 2; }
[[ -z ${SPLIT:-} || $SPLIT =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: SPLIT='$SPLIT'; expected a whole number of parts from 1, or unset" >&2; exit 2; }
mkdir -p "$RENDERS/logs"
# The tasks 0 ... SHARDS-1: task K renders shard K+1 of SHARDS (from Slurm's own variables): its
# presets, or with SPLIT its parts of them.
array=$(sbatch --parsable --array="0-$((SHARDS - 1))" --cpus-per-task="${CPUS:-4}" --mem="${MEM:-4G}" \
  --output="$RENDERS/logs/render-%A_%a.out" "$here/render-presets.sbatch" ${SPLIT:+--split "$SPLIT"} "$@")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --output="$RENDERS/logs/merge-%j.out" "$here/merge.sbatch")
merge=${merge%%;*}
echo "queued render array $array ($SHARDS tasks${SPLIT:+, every preset split in $SPLIT}) and merge $merge"
