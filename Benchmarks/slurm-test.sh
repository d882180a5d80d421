#!/usr/bin/env bash
# A real Slurm test of the shipped recipe (issue 14): starts a single-node Slurm cluster
# on this machine, bound to 127.0.0.1 only, submits Scripts/cluster/submit-slurm.sh's
# array of 4 shards and its dependent merge job, runs the same run in one process, and
# compares the merged folder with it under `bgbench check --exact`.
#
#   Benchmarks/slurm-test.sh                       # with .build/release/bgbench
#   Benchmarks/slurm-test.sh --binary PATH         # any bgbench executable
#   Benchmarks/slurm-test.sh --smoke               # the cluster only: a trivial array, a
#                                                  # dependent job, a failed task's merge
#                                                  # cancelled (no bgbench needed)
#   Benchmarks/slurm-test.sh --keep DIR            # keep the cluster's files and reports
#
# Needs root (the daemons run as root, without systemd). Installs slurm-wlm and munge
# from apt when sbatch is missing. The daemons listen on two free loopback ports; every
# daemon is stopped and the temporary folder removed on exit. Exit 0 when the merged
# folder equals the single run, 1 when it differs or a job fails, 2 on misuse.
set -euo pipefail

allow_smoke=1
. "$(dirname "$0")/recipe-options.sh"
[ "$(id -u)" = 0 ] || { echo "error: Benchmarks/slurm-test.sh starts Slurm's daemons and must run as root" >&2; exit 2; }

started=$(date +%s.%N)
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
log() { printf '[%5s s] %s\n' "$(since "$started")" "$*"; }

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    log "installing slurm-wlm and munge from apt"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
fi

work=${keep:-$(mktemp -d /tmp/bgbench-slurm.XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
export SLURM_CONF=$work/etc/slurm.conf

# A daemon that exited may stay a zombie until PID 1 reaps it: not alive.
alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
stop_cluster() {
    local t0 pid
    t0=$(date +%s.%N)
    # scontrol shutdown stops slurmctld and slurmd; munged gets SIGTERM once they are gone.
    # Each daemon is waited for (5 s at most, then SIGKILL) by the pid it wrote.
    scontrol shutdown >/dev/null 2>&1 || true
    for f in slurmctld slurmd munged; do
        pid=$(cat "$work/run/$f.pid" 2>/dev/null || true)
        [ -n "$pid" ] || continue
        [ "$f" = munged ] && kill "$pid" 2>/dev/null
        for _ in $(seq 50); do alive "$pid" || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    log "cluster stopped in $(since "$t0") s"
    if [ -z "$keep" ]; then rm -rf "$work"; else log "kept $work"; fi
}
trap stop_cluster EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The cluster: a munge key and munged on a private socket, slurm.conf naming this host at
# 127.0.0.1, slurmctld (-c: no saved state) and slurmd, all as root.
t0=$(date +%s.%N)
mkdir -p "$work"/{etc,state,spool,log,run,munge}
chmod 700 "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
    --pid-file="$work/run/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed"
host=$(hostname -s)
cpus=$(nproc)
memory=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
ctld_port=$(free_port) slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
cat >"$SLURM_CONF" <<EOF
ClusterName=bgbench-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -c
slurmd
state=
for _ in $(seq 300); do
    state=$(sinfo -h -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.1
done
if [ "$state" != idle ]; then
    echo "error: the Slurm node is '${state:-unreachable}', not idle, after 30 s; the logs:" >&2
    tail -n 20 "$work/log/slurmctld.log" "$work/log/slurmd.log" >&2 || true
    exit 1
fi
log "cluster up in $(since "$t0") s: node $host (127.0.0.1), $cpus CPUs, ports $ctld_port/$slurmd_port, $work"

if [ "$smoke" = 1 ]; then
    # A trivial array, then a job after it (afterok); then an array with a failing task,
    # whose dependent job must be cancelled (--kill-on-invalid-dep) rather than run.
    mkdir -p "$work/out"
    # shellcheck disable=SC2016 # the job's shell expands the task's variables
    array=$(sbatch --parsable --array=0-3 --output="$work/out/task-%a.out" \
        --wrap 'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT ($SLURM_ARRAY_TASK_MIN-$SLURM_ARRAY_TASK_MAX:$SLURM_ARRAY_TASK_STEP)"')
    sbatch --wait --quiet --dependency="afterok:$array" --kill-on-invalid-dep=yes --output="$work/out/after.out" \
        --wrap "cat $work/out/task-*.out"
    cat "$work/out/after.out"
    [ "$(grep -c '^task [0-3] of 4 (0-3:1)$' "$work/out/after.out")" = 4 ] || { echo "error: the dependent job did not see 4 tasks" >&2; exit 1; }
    log "array of 4 and a dependent job: done"
    # sbatch --wait exits 0 for a job cancelled before it ran: ask slurmctld for its state.
    # shellcheck disable=SC2016
    array=$(sbatch --parsable --array=0-3 --output=/dev/null --wrap '[ "$SLURM_ARRAY_TASK_ID" != 2 ]')
    after=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
        --output="$work/out/merge.out" --wrap 'echo merged')
    for _ in $(seq 600); do
        state=$(scontrol -o show job "$after" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
        case $state in PENDING|CONFIGURING|RUNNING) sleep 0.1 ;; *) break ;; esac
    done
    if [ "$state" != CANCELLED ] || [ -e "$work/out/merge.out" ]; then
        echo "error: the job after an array with a failed task is $state, not CANCELLED" >&2; exit 1
    fi
    log "a failed task (2 of 0-3): the dependent job was $state, never ran"
    echo "1 passed, 0 failed"
    exit 0
fi

# The shipped recipe: 4 shards and the merge, waited for; then the same run in one process.
# shellcheck disable=SC2054 # fixed,adaptive is one value
options=(--days 30 --devices 400 --policy fixed,adaptive --seed 7)
runs=$work/runs
mkdir -p "$runs"
log "submitting Scripts/cluster/submit-slurm.sh: 4 shards of run ${options[*]}"
status=0
BGBENCH=$binary "$top/Scripts/cluster/submit-slurm.sh" --shards 4 --wait --run-dir "$runs/sharded" -- run "${options[@]}" || status=$?
for f in "$runs"/sharded/logs/*.out; do sed "s|^|  $(basename "$f"): |" "$f"; done
if [ "$status" != 0 ]; then
    echo "error: the Slurm jobs failed (exit $status); the task lines above say which" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
log "array and merge done"
"$binary" run "${options[@]}" --quiet --out "$runs/single" >/dev/null
log "single process done"
if "$binary" check --exact --baseline "$runs/single" --current "$runs/sharded/merged"; then
    log "merged folder equals the single run"
    echo "1 passed, 0 failed"
else
    log "merged folder differs from the single run"
    echo "0 passed, 1 failed"
    exit 1
fi
