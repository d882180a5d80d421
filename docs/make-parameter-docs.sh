#!/usr/bin/env bash
# Regenerates what derives from the declared parameters (each section's and component's
# ParameterSet): Datasets/scenarios/default.json (`bgbench scenario --complete`) and the
# tables between the `<!-- parameters:<section>:begin -->` and `...:end -->` markers in
# docs/scenario.md (`bgbench scenario --markdown`). Run it after adding or changing a
# parameter; a test (ParameterTests) fails while either is stale.
set -euo pipefail
bgbench=${1:-.build/release/bgbench}
case $bgbench in /*) ;; */*) bgbench=$PWD/$bgbench ;; esac
cd "$(dirname "$0")/.."

"$bgbench" scenario --complete > Datasets/scenarios/default.json.tmp
mv Datasets/scenarios/default.json.tmp Datasets/scenarios/default.json

"$bgbench" scenario --markdown | python3 -c '
import re, sys
blocks = dict(re.findall(r"<!-- parameters:(\w+):begin -->\n(.*?)<!-- parameters:\1:end -->", sys.stdin.read(), re.S))
with open("docs/scenario.md") as f:
    text = f.read()
def block(m):
    if m.group(1) not in blocks:
        sys.exit("docs/scenario.md: no generated block for section " + m.group(1))
    return m.group(0).split("\n")[0] + "\n" + blocks[m.group(1)] + "<!-- parameters:" + m.group(1) + ":end -->"
text = re.sub(r"<!-- parameters:(\w+):begin -->\n.*?<!-- parameters:\1:end -->", block, text, flags=re.S)
with open("docs/scenario.md.tmp", "w") as f:
    f.write(text)
'
mv docs/scenario.md.tmp docs/scenario.md

# default.json is built into the binary with the other presets: refresh that copy too
# (ResourcesTests fails when it is stale).
python3 Scripts/make-embedded.py
