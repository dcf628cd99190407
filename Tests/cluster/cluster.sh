# shellcheck shell=bash
# A one-node Slurm cluster in a temporary folder, for Tests/cluster/slurm.sh (sourced, not run).
#
#   cluster_start DIR   writes DIR/slurm.conf and a munge key, starts munged, slurmctld and slurmd
#                       (their pid files, state, spool, sockets and logs all in DIR), waits until the
#                       node is idle, and exports SLURM_CONF so sbatch, squeue and scontrol use it.
#   cluster_stop DIR    cancels the cluster's jobs, then stops slurmd, slurmctld and munged by the
#                       pids in their pid files (TERM, then KILL after 10 s). Safe to call twice.
#   cluster_log DIR     the tail of every daemon's log, for a failure report.
#
# The daemons run as the calling user, which must be root (slurmd starts each job as its owner).

# A TCP port nothing listens on, from a range the kernel does not hand out to clients.
cluster_free_port() {
  local port taken
  taken=$(ss -Htan 2>/dev/null | awk '{ sub(/.*:/, "", $4); print $4 }')
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 12000))
    grep -qx "$port" <<<"$taken" || { echo "$port"; return 0; }
  done
  echo "cluster: no free TCP port found" >&2
  return 1
}

# Waits up to $1 seconds for the command after it to succeed.
cluster_wait() {
  local seconds=$1
  shift
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

cluster_start() {
  local dir=$1
  local host node ctld_port slurmd_port
  host=$(hostname -s)
  mkdir -p "$dir/munge" "$dir/munge-key" "$dir/state" "$dir/spool" "$dir/log"
  # munged wants its socket's folders (all of them, up to /) searchable by all and its key
  # readable by it alone.
  chmod 755 "$dir" "$dir/munge"
  chmod 700 "$dir/munge-key"

  # munge: a generated key, its own socket, pid file, seed and log.
  mungekey --create --keyfile="$dir/munge-key/munge.key"
  chmod 400 "$dir/munge-key/munge.key"
  munged --key-file="$dir/munge-key/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge-key/munged.seed" \
    --log-file="$dir/log/munged.log" || { echo "cluster: munged did not start" >&2; return 1; }
  cluster_wait 20 sh -c "munge -n -S '$dir/munge/munge.socket' | unmunge -S '$dir/munge/munge.socket'" || {
    echo "cluster: munged did not answer on $dir/munge/munge.socket" >&2
    return 1
  }

  # The node as slurmd sees this machine (CPUs, sockets, cores, threads, memory), reachable on
  # the loopback address.
  node=$(slurmd -C | head -n 1)
  [[ $node == NodeName=* ]] || { echo "cluster: slurmd -C printed '$node'; expected NodeName=..." >&2; return 1; }
  ctld_port=$(cluster_free_port)
  slurmd_port=$(cluster_free_port)
  while [[ $slurmd_port == "$ctld_port" ]]; do slurmd_port=$(cluster_free_port); done
  cat >"$dir/slurm.conf" <<EOF
ClusterName=loopsmith-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=600
KillWait=10
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=loopsmith Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" || { echo "cluster: slurmctld did not start" >&2; return 1; }
  cluster_wait 30 scontrol ping || { echo "cluster: slurmctld did not answer scontrol ping" >&2; return 1; }
  slurmd -f "$SLURM_CONF" || { echo "cluster: slurmd did not start" >&2; return 1; }
  # shellcheck disable=SC2016 # expanded by sh, each time
  cluster_wait 60 sh -c '[ "$(sinfo -h -o %T)" = idle ]' || {
    echo "cluster: the node is '$(sinfo -h -o %T 2>&1)', not idle" >&2
    return 1
  }
}

# Stops the process whose pid is in file $1: TERM, then KILL after 10 s.
cluster_stop_pidfile() {
  local file=$1 pid
  [[ -s $file ]] || return 0
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 20); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  kill -KILL "$pid" 2>/dev/null || true
}

cluster_stop() {
  local dir=$1 jobs
  if [[ -s $dir/slurmctld.pid ]] && SLURM_CONF=$dir/slurm.conf scontrol ping >/dev/null 2>&1; then
    jobs=$(SLURM_CONF=$dir/slurm.conf squeue -h -o %A 2>/dev/null | sort -u)
    if [[ -n $jobs ]]; then
      # shellcheck disable=SC2086
      SLURM_CONF=$dir/slurm.conf scancel $jobs 2>/dev/null || true
      cluster_wait 20 sh -c "[ -z \"\$(SLURM_CONF='$dir/slurm.conf' squeue -h -o %A)\" ]" || true
    fi
  fi
  cluster_stop_pidfile "$dir/slurmd.pid"
  cluster_stop_pidfile "$dir/slurmctld.pid"
  cluster_stop_pidfile "$dir/munge/munged.pid"
}

cluster_log() {
  local dir=$1 f
  for f in "$dir"/log/*.log; do
    [[ -f $f ]] || continue
    echo "--- $f (last 30 lines)"
    tail -n 30 "$f"
  done
}
