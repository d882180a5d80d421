# Sourced by the scripts that write measured blocks into README.md and docs/ (soak.sh,
# shard-bench.sh, c-reference.sh, run-costs.sh, docs/make-trust-figures.sh): the binary
# to measure, the sitting's description, and the block writer. Not run on its own.
#
#   resolve_binary NAME   sets $binary to an absolute path: NAME as given, or bgbench on
#                         the PATH when NAME is empty; exits 66 when it is not executable
#   sitting               one line naming the build, the date and the machine's load now:
#                         "bgbench 0.1.0 (commit 1234567), 2026-12-03 20:40 UTC, 2 cores,
#                         load average 2.31"
#   load_now              the 1-minute load average
#   common_option ALLOWED WORDS...
#                         one of the options the generators share, if ALLOWED (a list of
#                         them) has it: --binary PATH (sets binary_arg), --check (check=1),
#                         --write (write=1); sets `consumed` to the words it used, or
#                         returns 1 for any other word
#   setup_work [time]     a temporary folder in $work, removed on exit; with `time`, exits
#                         69 first when GNU time (/usr/bin/time) is missing
#   write_block FILE NAME reads the block's text on standard input and writes it between
#                         FILE's markers (Scripts/python/docblock.py), or, when $check is 1,
#                         only compares (exit 1 when it differs)

bgbench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

resolve_binary() {
    local name=${1:-}
    if [ -z "$name" ]; then
        name=$(command -v bgbench) || { echo "error: no bgbench on the PATH: give --binary PATH" >&2; exit 66; }
    fi
    case $name in /*) ;; *) name=$PWD/$name ;; esac
    [ -x "$name" ] || { echo "error: no bgbench at '$name': build it with 'swift build -c release'" >&2; exit 66; }
    binary=$name
}

common_option() {
    local allowed=" $1 "; shift
    case "$allowed" in *" $1 "*) ;; *) return 1 ;; esac
    case "$1" in
        --binary) [ $# -ge 2 ] || return 1; binary_arg=$2; consumed=2 ;;
        --check) check=1; consumed=1 ;;
        --write) write=1; consumed=1 ;;
        *) return 1 ;;
    esac
}

setup_work() {
    if [ "${1:-}" = time ] && [ ! -x /usr/bin/time ]; then
        echo "error: needs GNU time (/usr/bin/time): apt-get install -y time" >&2
        exit 69
    fi
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
}

load_now() { cut -d' ' -f1 /proc/loadavg; }

sitting() {
    local version commit
    version=$("$binary" --version | head -n 1)
    commit=$(python3 -c 'import re, sys; m = re.search(r"\b([0-9a-f]{7})[0-9a-f]{33}(-dirty)?", sys.argv[1]); print(m.group(1) + (m.group(2) or "") if m else "unknown")' "$("$binary" --version)")
    echo "${version%% (*} (commit $commit), $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(load_now)"
}

write_block() {
    if [ "${check:-0}" = 1 ]; then
        python3 "$bgbench_root/Scripts/python/docblock.py" --check "$bgbench_root/$1" "$2"
    else
        python3 "$bgbench_root/Scripts/python/docblock.py" "$bgbench_root/$1" "$2"
    fi
}
