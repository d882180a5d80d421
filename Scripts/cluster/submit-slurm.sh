#!/usr/bin/env bash
# Submits a bgbench run, sweep or frontier as a Slurm job array of N shards
# (Scripts/cluster/bgbench-array.sbatch) and `bgbench merge` as a job that runs only when
# every task succeeded (--dependency=afterok, --kill-on-invalid-dep=yes: a failed task
# cancels the merge instead of leaving it pending for ever).
#
#   Scripts/cluster/submit-slurm.sh --shards 16 --run-dir /shared/bgbench/r1 -- \
#       run --policy fixed,adaptive --days 365 --devices 100000
#   Scripts/cluster/submit-slurm.sh --rerun 7 --shards 16 --run-dir /shared/bgbench/r1 -- \
#       run --policy fixed,adaptive --days 365 --devices 100000   # task 7 again, then the merge
#
# Options:
#   --shards N        number of shards: the array 0-(N-1) (Scripts/cluster/README.md says
#                     how many: shards of 5-30 minutes)
#   --run-dir DIR     a folder every node sees: DIR/shards/task-K, DIR/logs, DIR/merged
#   --rerun K[,K...]  submit only these tasks (same --shards, options and run dir) and a
#                     new merge after them
#   --bgbench PATH    the bgbench executable on the nodes (default: $BGBENCH, else bgbench)
#   --wait            wait for the merge job; exit 0 when it completed, 1 otherwise
# Everything after `--` is the bgbench command and its options, without --out and --shard.
# Partition, account, time limit: sbatch's own variables (SBATCH_PARTITION,
# SBATCH_ACCOUNT, SBATCH_TIMELIMIT) or #SBATCH lines in the .sbatch file.
set -euo pipefail

shards='' run_dir='' rerun='' wait=0 bgbench=${BGBENCH:-bgbench}
usage() { echo "error: $1; see 'Scripts/cluster/submit-slurm.sh --help'" >&2; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --shards) shards=${2:-}; shift 2 || usage "--shards needs a number" ;;
        --run-dir) run_dir=${2:-}; shift 2 || usage "--run-dir needs a folder" ;;
        --rerun) rerun=${2:-}; shift 2 || usage "--rerun needs task numbers" ;;
        --bgbench) bgbench=${2:-}; shift 2 || usage "--bgbench needs a path" ;;
        --wait) wait=1; shift ;;
        --) shift; break ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) usage "unknown option '$1' (the bgbench command goes after '--')" ;;
    esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || usage "missing or invalid --shards '$shards': expected a positive integer"
[ -n "$run_dir" ] || usage "missing --run-dir: expected a folder every node sees"
[ $# -gt 0 ] || usage "missing the bgbench command after '--' (run, sweep or frontier and its options)"
[[ -z $rerun || $rerun =~ ^[0-9]+(,[0-9]+)*$ ]] || usage "invalid --rerun '$rerun': expected task numbers, e.g. 3 or 3,7"
case $bgbench in */*) bgbench=$(cd "$(dirname "$bgbench")" && pwd)/$(basename "$bgbench") ;; esac
here=$(cd "$(dirname "$0")" && pwd)

for k in ${rerun//,/ }; do
    [ "$k" -lt "$shards" ] || usage "--rerun $k is not a task of 0-$((shards - 1))"
done
mkdir -p "$run_dir/shards" "$run_dir/logs"
run_dir=$(cd "$run_dir" && pwd)

export RUN_DIR=$run_dir BGBENCH=$bgbench
if [ -n "$rerun" ]; then
    export BGBENCH_RERUN_OF=$shards
    tasks=$rerun
else
    unset BGBENCH_RERUN_OF
    tasks=0-$((shards - 1))
fi
array=$(sbatch --parsable --array="$tasks" --output="$run_dir/logs/%x-%A_%a.out" "$here/bgbench-array.sbatch" "$@")
array=${array%%;*}
merge_command=$(printf '%q ' "$bgbench" merge --out "$run_dir/merged" "$run_dir/shards")
merge=$(sbatch --parsable --job-name=bgbench-merge --dependency="afterok:$array" --kill-on-invalid-dep=yes \
    --output="$run_dir/logs/%x-%j.out" --wrap "$merge_command")
merge=${merge%%;*}
echo "array job $array: tasks $tasks of $shards shards of 'bgbench $*' into $run_dir/shards"
echo "merge job $merge after it (afterok) into $run_dir/merged; logs in $run_dir/logs"

[ "$wait" = 1 ] || exit 0
# sbatch --wait exits 0 for a job cancelled before it ran, so ask slurmctld for the state.
unknown=0
while :; do
    state=$(scontrol -o show job "$merge" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
    case $state in
        PENDING|CONFIGURING|RUNNING|COMPLETING) sleep 1 ;;
        "") unknown=$((unknown + 1)); [ "$unknown" -lt 30 ] || { state=UNKNOWN; break; }; sleep 1 ;;
        *) break ;;
    esac
done
if [ "$state" = COMPLETED ]; then
    echo "merge job $merge completed: $run_dir/merged"
else
    echo "merge job $merge: $state (a task failed, see $run_dir/logs, or the merge refused the shards)" >&2
    exit 1
fi
