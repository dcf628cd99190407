#!/bin/bash
# From the repository root, after `make build`: queue the render array, then the merge after it.
set -euo pipefail
mkdir -p renders/logs
array=$(sbatch --parsable examples/slurm/render-presets.sbatch)
sbatch --dependency="afterok:${array}" examples/slurm/merge.sbatch
echo "queued render array ${array} and its merge"
