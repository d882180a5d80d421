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
# --prefix and --binary are paths as the caller typed them, relative to the caller's
# folder: they are made absolute here, before the script changes into the checkout.
absolute() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
prefix=/usr/local
binary=
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || { echo "error: '--prefix' needs a folder" >&2; exit 64; }
            [ -n "$2" ] || { echo "error: invalid value '' for '--prefix': expected a folder (an empty prefix would install into /bin)" >&2; exit 64; }
            prefix=$(absolute "$2"); shift 2 ;;
        --binary) [ $# -ge 2 ] || { echo "error: '--binary' needs a file" >&2; exit 64; }
            [ -n "$2" ] || { echo "error: invalid value '' for '--binary': expected a built bgbench executable" >&2; exit 64; }
            binary=$(absolute "$2"); shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$1': expected --prefix DIR or --binary FILE" >&2; exit 64 ;;
    esac
done
# Trailing slashes off ('/' itself becomes '', so PREFIX/bin is /bin).
while [ "${prefix%/}" != "$prefix" ]; do prefix=${prefix%/}; done
cd "$(dirname "$0")"
if [ -z "$binary" ]; then
    swift build -c release --product bgbench
    binary=$PWD/.build/release/bgbench
fi
[ -f "$binary" ] && [ -x "$binary" ] || { echo "error: '$binary' is not an executable file" >&2; exit 66; }
install -D -m 755 "$binary" "$prefix/bin/bgbench"
echo "installed $prefix/bin/bgbench"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "note: $prefix/bin is not on your PATH: export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
