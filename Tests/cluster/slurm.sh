#!/usr/bin/env bash
# make test-cluster: examples/slurm on a real one-node Slurm cluster (slurmctld, slurmd, munged,
# started here in a temporary folder and stopped by their pid files whatever happens).
#
# It runs the README's commands unchanged (checking that the README still shows them): submit.sh
# queues the render array and the merge; one task is cancelled mid-render, which cancels the merge;
# rerun.sh requeues that task and a new merge. The merged folder must equal a one-machine `batch` of
# the same presets: the same files with the same sha256, a manifest listing each, a gallery. Then
# one loop is split over the array (SPLIT=3: each task renders a third of its frames) and merged:
# its Y4M is the one-machine render's byte for byte, its MP4 a one-machine split's, with the whole
# render's frames and duration.
#
#   Tests/cluster/slurm.sh [--can-run]
#
# --can-run only says whether this machine can run the daemons, once make test-cluster has installed
# them (exit 0), or why not (one line on stdout, exit 3). LOOPSMITH_BIN is the binary to test
# (default: the debug build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
# shellcheck source=Tests/cluster/cluster.sh
source Tests/cluster/cluster.sh

# What the environment must give: root (slurmd starts each job as its owner), a loopback address,
# and the daemons, or apt-get to install them (make test-cluster does).
can_run() {
  [[ $(id -u) == 0 ]] || { echo "not root: slurmd must run as root to start jobs"; return 1; }
  [[ $(ip -o addr show lo 2>/dev/null) == *"inet 127.0.0.1/"* ]] || { echo "no loopback address 127.0.0.1 (ip -o addr show lo)"; return 1; }
  command -v ss >/dev/null || { echo "ss (iproute2) is not installed"; return 1; }
  local tool
  for tool in munged mungekey slurmctld slurmd sbatch scontrol squeue scancel sinfo python3; do
    command -v "$tool" >/dev/null && continue
    [[ ${1:-} == installable ]] && command -v apt-get >/dev/null && continue
    echo "$tool is not installed (make test-cluster installs slurm-wlm and munge with apt-get)"
    return 1
  done
}
if [[ ${1:-} == --can-run ]]; then
  reason=$(can_run installable) && exit 0
  echo "$reason"
  exit 3
fi
if ! reason=$(can_run); then
  echo "test-cluster: cannot run here: $reason" >&2
  exit 3
fi

bin=${LOOPSMITH_BIN:-$repo/.build/debug/loopsmith}
[[ -x $bin ]] || { echo "test-cluster: $bin is missing; expected swift build first" >&2; exit 1; }
work=$(mktemp -d /tmp/loopsmith-cluster.XXXXXX)
chmod 755 "$work"
step() { echo "test-cluster: $*"; }
fail() {
  echo "test-cluster: FAILED: $*" >&2
  exit 1
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  cluster_stop "$work/cluster"
  if ((status != 0)); then
    cluster_log "$work/cluster" >&2
    for f in "$work"/renders/logs/*.out "$work"/renders-split/logs/*.out; do
      [[ -f $f ]] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }
    done
    echo "test-cluster: kept $work" >&2
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The commands the README's Clusters section shows, run unchanged (the test fails if they drift).
settings_command='export SHARDS=3 CPUS=1 MEM=1G'
submit_command='examples/slurm/submit.sh --size 32x32 --scale 0.1 --fps 4'
# shellcheck disable=SC2016 # $array is expanded when the line runs, as a user's shell would
rerun_command='examples/slurm/rerun.sh "$array" 0'
split_command='export SPLIT=3'
for line in "$settings_command" "$submit_command" "$rerun_command" "$split_command"; do
  grep -qxF "$line" README.md || fail "README.md does not show the line: $line"
done
batch_flags=(--size 32x32 --scale 0.1 --fps 4)

step "starting munged, slurmctld and slurmd in $work/cluster"
cluster_start "$work/cluster" || fail "the cluster did not start"
step "node: $(sinfo -h -N -o '%N %c CPUs %m MB %T')"

# A small set: four effects and a weather, at a tiny size; sorted by name, shard 1 of 3 is
# aurora-mesh and voice-orb-speaking (task 0, the one cancelled), 2 is blob-morph-loader and
# weather-rain, 3 color-orbs (two outputs).
mkdir -p "$work/presets"
for p in aurora-mesh blob-morph-loader color-orbs voice-orb-speaking weather-rain; do
  cp "presets/$p.json" "$work/presets/"
done
export LOOPSMITH=$bin PRESETS=$work/presets RENDERS=$work/renders

step "$settings_command"
eval "$settings_command"
step "$submit_command"
out=$(eval "$submit_command")
echo "$out"
[[ $out =~ ^queued\ render\ array\ ([0-9]+)\ \(3\ tasks\)\ and\ merge\ ([0-9]+)$ ]] || fail "submit.sh printed '$out'"
array=${BASH_REMATCH[1]} merge=${BASH_REMATCH[2]}

job_state() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
wait_state() {
  local job=$1 want=$2 seconds=$3 state=""
  local deadline=$((SECONDS + seconds))
  while ((SECONDS < deadline)); do
    state=$(job_state "$job")
    [[ $state == "$want" ]] && return 0
    case $state in COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) break ;; esac
    sleep 0.5
  done
  fail "job $job is ${state:-unknown}, expected $want (within $seconds s)"
}

# Cancel task 0 while it renders: it runs, its folder is there, and its first output
# (aurora-mesh.mp4, several seconds of work) is not yet.
step "waiting for task ${array}_0 to be mid-render"
deadline=$((SECONDS + 120))
until [[ $(job_state "${array}_0") == RUNNING && -d $RENDERS/shard-0 ]]; do
  ((SECONDS < deadline)) || fail "task ${array}_0 did not start rendering within 120 s (state $(job_state "${array}_0"))"
  [[ $(job_state "${array}_0") =~ ^(PENDING|RUNNING|CONFIGURING)$ ]] || fail "task ${array}_0 is $(job_state "${array}_0") before it could be cancelled"
  sleep 0.1
done
sleep 1
[[ ! -e $RENDERS/shard-0/aurora-mesh.mp4 ]] || fail "task ${array}_0 finished its first preset before it could be cancelled"
step "scancel ${array}_0"
scancel "${array}_0"
wait_state "${array}_0" CANCELLED 60
wait_state "${array}_1" COMPLETED 180
wait_state "${array}_2" COMPLETED 180
wait_state "$merge" CANCELLED 60
# SIGTERM stopped the render cleanly: no temporary left, no partial file at an output path, the
# cut preset not listed as done.
[[ -z $(find "$RENDERS/shard-0" -iname '*tmp*') ]] || fail "task ${array}_0 left a temporary: $(ls -a "$RENDERS/shard-0")"
[[ ! -e $RENDERS/all ]] || fail "the merge ran although a task was cancelled"
python3 - "$RENDERS/shard-0" <<'EOF' || fail "the cancelled task's manifest is wrong"
import json, os, sys
path = os.path.join(sys.argv[1], "manifest.json")
rows = json.load(open(path))["outputs"] if os.path.exists(path) else []
done = {r["path"] for r in rows if r["status"] == "rendered"}
assert done != {"aurora-mesh.mp4", "voice-orb-speaking.webm"}, f"the cancelled task rendered its whole shard: {rows}"
for p in done:
    assert os.path.exists(os.path.join(sys.argv[1], p)), f"{p} is listed but missing"
for f in os.listdir(sys.argv[1]):
    if f.endswith((".mp4", ".webm")):
        assert f in done, f"{f} is in the folder but not listed as rendered: a partial output"
EOF
step "task 0 was cancelled mid-render, the merge with it; re-running it"

step "$rerun_command"
out=$(eval "$rerun_command")
echo "$out"
[[ $out =~ ^requeued\ task\ ${array}_0\ and\ merge\ ([0-9]+)$ ]] || fail "rerun.sh printed '$out'"
merge=${BASH_REMATCH[1]}
wait_state "${array}_0" COMPLETED 180
wait_state "$merge" COMPLETED 120

step "the same presets on one machine"
"$bin" batch "$PRESETS" --out "$work/single" --threads 1 --gallery --quiet "${batch_flags[@]}"

# The same outputs, byte for byte, and manifests that list each with its sha256.
list() { (cd "$1" && find . -maxdepth 1 -type f \( -name '*.mp4' -o -name '*.webm' -o -name '*.mov' -o -name '*.gif' \) -printf '%f\n' | sort); }
[[ $(list "$RENDERS/all") == "$(list "$work/single")" ]] || fail "merged files: $(list "$RENDERS/all" | tr '\n' ' '); one machine: $(list "$work/single" | tr '\n' ' ')"
[[ $(list "$RENDERS/all" | wc -l) == 6 ]] || fail "expected 6 outputs, got: $(list "$RENDERS/all" | tr '\n' ' ')"
(cd "$RENDERS/all" && list . | xargs sha256sum) >"$work/all.sha256"
(cd "$work/single" && list . | xargs sha256sum) >"$work/single.sha256"
diff "$work/all.sha256" "$work/single.sha256" >&2 || fail "the merged files differ from the one-machine batch"
python3 - "$RENDERS/all" "$work/all.sha256" <<'EOF' || fail "the merged manifest or gallery is wrong"
import json, os, sys
folder, sums = sys.argv[1], sys.argv[2]
want = {line.split()[1]: line.split()[0] for line in open(sums)}
rows = json.load(open(os.path.join(folder, "manifest.json")))["outputs"]
got = {r["path"]: r.get("sha256") for r in rows}
assert got == want, f"manifest lists {got}, files are {want}"
assert all(r["status"] in ("rendered", "skipped") for r in rows), rows
assert {r["preset"] for r in rows} == {"aurora-mesh", "blob-morph-loader", "color-orbs", "voice-orb-speaking", "weather-rain"}, rows
html = open(os.path.join(folder, "index.html")).read()
for path in want:
    assert f'<source src="./{path}"' in html, f"index.html does not play {path}"
for preset in {r["preset"] for r in rows}:
    assert f'poster="./posters/{preset}.png"' in html, f"index.html has no poster for {preset}"
    with open(os.path.join(folder, "posters", preset + ".png"), "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", preset
print(f"test-cluster: manifest lists {len(rows)} outputs with their sha256; index.html shows each, with posters")
EOF
step "the merged folder equals the one-machine batch ($(wc -l <"$work/all.sha256") files, same sha256)"

# One loop split over the array: the same submit.sh with SPLIT set, as the README shows; every task
# renders a third of the loop's frames, the merge joins them without re-encoding. The preset also
# writes a Y4M, whose frames are compared byte for byte.
step "one loop split over the array"
mkdir -p "$work/loop"
python3 - presets/aurora-mesh.json "$work/loop/aurora-mesh.json" <<'EOF'
import json, sys
preset = json.load(open(sys.argv[1]))
preset["outputs"] = ["aurora-mesh.mp4", "aurora-mesh.y4m"]
json.dump(preset, open(sys.argv[2], "w"))
EOF
export PRESETS=$work/loop/aurora-mesh.json RENDERS=$work/renders-split
step "$split_command"
eval "$split_command"
step "$submit_command"
out=$(eval "$submit_command")
echo "$out"
[[ $out =~ ^queued\ render\ array\ ([0-9]+)\ \(3\ tasks,\ every\ preset\ split\ in\ 3\)\ and\ merge\ ([0-9]+)$ ]] ||
  fail "submit.sh printed '$out'"
array=${BASH_REMATCH[1]} merge=${BASH_REMATCH[2]}
for task in 0 1 2; do wait_state "${array}_$task" COMPLETED 180; done
wait_state "$merge" COMPLETED 120

step "the same loop on one machine, whole and split"
"$bin" batch "$PRESETS" --out "$work/loop-whole" --threads 1 --quiet "${batch_flags[@]}"
"$bin" batch "$PRESETS" --out "$work/loop-split" --threads 1 --quiet --split 3 "${batch_flags[@]}"
"$bin" batch --merge "$work/loop-split" --out "$work/loop-split" --quiet
sum() { sha256sum "$1" | cut -d ' ' -f 1; }
[[ $(sum "$RENDERS/all/aurora-mesh.y4m") == "$(sum "$work/loop-whole/aurora-mesh.y4m")" ]] ||
  fail "the split loop's Y4M differs from the one-machine render's"
[[ $(sum "$RENDERS/all/aurora-mesh.mp4") == "$(sum "$work/loop-split/aurora-mesh.mp4")" ]] ||
  fail "the split loop's MP4 differs from a one-machine split's"
"$bin" check "$RENDERS/all/aurora-mesh.mp4" >"$work/split.check" || {
  cat "$work/split.check" >&2
  fail "check failed on the split loop"
}
"$bin" check "$work/loop-whole/aurora-mesh.mp4" >"$work/whole.check" || fail "check failed on the whole loop"
timing() { sed -n 's/^ *\(frames [0-9]*, duration [0-9.]* s\),.*/\1/p' "$1"; }
[[ -n $(timing "$work/whole.check") && $(timing "$work/split.check") == "$(timing "$work/whole.check")" ]] ||
  fail "the split loop has '$(timing "$work/split.check")'; the whole render '$(timing "$work/whole.check")'"
grep -q 'key frame at 0: yes' "$work/split.check" || fail "the split loop does not start on a key frame"
python3 - "$RENDERS" <<'EOF' || fail "the split loop's manifest, gallery or segments are wrong"
import glob, hashlib, json, os, sys
renders = sys.argv[1]
folder = os.path.join(renders, "all")
rows = json.load(open(os.path.join(folder, "manifest.json")))["outputs"]
assert sorted(r["path"] for r in rows) == ["aurora-mesh.mp4", "aurora-mesh.y4m"], rows
for r in rows:
    with open(os.path.join(folder, r["path"]), "rb") as f:
        assert r["sha256"] == hashlib.sha256(f.read()).hexdigest(), r
    assert r["status"] == "rendered" and "segmentOf" not in r, r
html = open(os.path.join(folder, "index.html")).read()
assert '<source src="./aurora-mesh.mp4"' in html and 'poster="./posters/aurora-mesh.png"' in html, html
left = glob.glob(os.path.join(renders, "shard-*", "segments", "*"))
assert not left, f"segments left after the merge: {left}"
print(f"test-cluster: the split loop's manifest lists {len(rows)} outputs; its segments are removed")
EOF
step "passed: the split loop equals the one-machine render ($(timing "$work/split.check"), Y4M byte for byte)"
