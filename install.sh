#!/usr/bin/env bash
# Installs bgbench into PREFIX/bin (default /usr/local): builds the release binary, then
# copies it. The binary carries the scenario presets and plot.py (Scripts/make-embedded.py),
# so it runs from any folder, and the commit it was built from (Plugins/BuildStamp), which
# run.json and --version name wherever it is installed; nothing else is installed.
#
#   ./install.sh [--prefix DIR] [--binary FILE]
#
# --binary FILE installs an already built binary instead of building (the tests use it).
set -euo pipefail
cd "$(dirname "$0")"
prefix=/usr/local
binary=
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "error: '--prefix' needs a folder" >&2; exit 64; }; prefix=$2; shift 2 ;;
        --binary) [ $# -ge 2 ] || { echo "error: '--binary' needs a file" >&2; exit 64; }; binary=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1': expected --prefix DIR or --binary FILE" >&2; exit 64 ;;
    esac
done
if [ -z "$binary" ]; then
    swift build -c release --product bgbench
    binary=.build/release/bgbench
fi
[ -x "$binary" ] || { echo "error: '$binary' is not an executable file" >&2; exit 66; }
install -D -m 755 "$binary" "$prefix/bin/bgbench"
echo "installed $prefix/bin/bgbench"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
