#!/usr/bin/env bash
# Runs a bgbench run, sweep or frontier as N shards with GNU parallel, on this machine's
# cores or on several hosts over ssh, then merges them (issue 14).
#
#   Scripts/cluster/parallel.sh --shards 8 --run-dir runs/r1 -- run --policy fixed,adaptive --days 365 --devices 20000
#   Scripts/cluster/parallel.sh --shards 32 --sshlogin 8/node1,8/node2 --run-dir /shared/r1 -- run ...
#   Scripts/cluster/parallel.sh --resume ... (the same line)   # rerun only the shards that failed, then merge
#
# Options:
#   --shards N          number of shards (Scripts/cluster/README.md says how many)
#   --run-dir DIR       DIR/shards/K (one report folder per shard), DIR/logs (each shard's
#                       terminal output, parallel's job log), DIR/merged (the merged report)
#   --jobs J            shards at once on each host (default: this machine's cores)
#   --sshlogin LOGINS   GNU parallel's --sshlogin: hosts, e.g. 8/node1,8/node2 (':' is this
#                       machine); DIR and the bgbench path must be the same on every host
#                       (a shared file system)
#   --bgbench PATH      the bgbench executable (default: $BGBENCH, else bgbench on PATH)
#   --resume            run only the shards the job log does not show as done (parallel
#                       --resume-failed): after a failure, the same line again
# Everything after `--` is the bgbench command and its options, without --out and --shard
# (each shard runs on one thread unless the options give --threads).
set -euo pipefail

shards='' run_dir='' jobs=$(nproc) sshlogin='' resume=() bgbench=${BGBENCH:-bgbench}
usage() { echo "error: $1; see 'Scripts/cluster/parallel.sh --help'" >&2; exit 64; }
while [ $# -gt 0 ]; do
    case $1 in
        --shards) shards=${2:-}; shift 2 || usage "--shards needs a number" ;;
        --run-dir) run_dir=${2:-}; shift 2 || usage "--run-dir needs a folder" ;;
        --jobs) jobs=${2:-}; shift 2 || usage "--jobs needs a number" ;;
        --sshlogin) sshlogin=${2:-}; shift 2 || usage "--sshlogin needs hosts" ;;
        --bgbench) bgbench=${2:-}; shift 2 || usage "--bgbench needs a path" ;;
        --resume) resume=(--resume-failed); shift ;;
        --) shift; break ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) usage "unknown option '$1' (the bgbench command goes after '--')" ;;
    esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || usage "missing or invalid --shards '$shards': expected a positive integer"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage "invalid --jobs '$jobs': expected a positive integer"
[ -n "$run_dir" ] || usage "missing --run-dir"
[ $# -gt 0 ] || usage "missing the bgbench command after '--' (run, sweep or frontier and its options)"
command -v parallel >/dev/null || { echo "error: GNU parallel is not installed (apt-get install parallel)" >&2; exit 69; }
mkdir -p "$run_dir/shards" "$run_dir/logs"
run_dir=$(cd "$run_dir" && pwd)
case $bgbench in */*) bgbench=$(cd "$(dirname "$bgbench")" && pwd)/$(basename "$bgbench") ;; esac

# One shard: its report folder DIR/shards/K and its terminal output DIR/logs/shard-K.txt.
threads=(--threads 1)
case " $* " in *" --threads "*|*" --threads="*) threads=() ;; esac
shard=$(printf '%q ' "$bgbench" "$@" "${threads[@]}")
shard+="--shard {}/$shards --out $(printf '%q' "$run_dir")/shards/{} >$(printf '%q' "$run_dir")/logs/shard-{}.txt 2>&1"
hosts=()
[ -z "$sshlogin" ] || hosts=(--sshlogin "$sshlogin")
started=$(date +%s)
parallel -j "$jobs" "${hosts[@]}" "${resume[@]}" --halt never --joblog "$run_dir/logs/parallel.log" \
    "$shard" ::: $(seq 0 $((shards - 1))) || {
    failed=$(awk -F'\t' 'NR > 1 { exit_of[$1 - 1] = $7 } END { for (k in exit_of) if (exit_of[k] != 0) print k }' \
        "$run_dir/logs/parallel.log" | sort -n | paste -sd, -)
    case $failed in *,*) which="shards $failed" ;; *) which="shard ${failed:-?}" ;; esac
    echo "error: $which of $shards failed (output in $run_dir/logs/shard-K.txt," \
         "exit values in $run_dir/logs/parallel.log); rerun with the same line and --resume" >&2
    exit 1
}
echo "$shards shards in $(( $(date +%s) - started )) s into $run_dir/shards; merging into $run_dir/merged"
"$bgbench" merge --out "$run_dir/merged" "$run_dir/shards"
