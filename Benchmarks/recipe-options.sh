# Sourced by the recipe tests (slurm-test.sh, parallel-test.sh, k8s-test.sh) with their
# arguments: reads --binary PATH (default .build/release/bgbench), --keep DIR, -h/--help
# (the caller's header comment) and, where the caller set allow_smoke=1, --smoke. Sets
# binary (absolute), keep, smoke and top (the checkout); exit 2 on misuse.
binary=.build/release/bgbench keep='' smoke=0
while [ $# -gt 0 ]; do
    case $1 in
        --binary) binary=${2:?--binary needs a path}; shift 2 ;;
        --keep) keep=${2:?--keep needs a folder}; shift 2 ;;
        --smoke) [ "${allow_smoke:-0}" = 1 ] || { echo "error: unknown option '$1' for Benchmarks/$(basename "$0")" >&2; exit 2; }
                 smoke=1; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) echo "error: unknown option '$1' for Benchmarks/$(basename "$0")" >&2; exit 2 ;;
    esac
done
case $binary in /*) ;; *) binary=$PWD/$binary ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "$smoke" = 0 ] && [ ! -x "$binary" ]; then
    echo "error: no bgbench executable at '$binary': build it (swift build -c release) or give --binary PATH" >&2
    exit 2
fi
