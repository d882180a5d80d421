#!/bin/sh
# Writes docs/cli.md's generated part (between the cli-options markers): every command's
# usage lines and a table of its options, from the commands' declarations
# (Sources/BGBenchCLI, `Command.all`). Run after adding or changing a command or option;
# CLIDocsTests fails while docs/cli.md is stale.
set -e
cd "$(dirname "$0")/.."
BGBENCH_WRITE_README=1 swift test -c release -Xswiftc -enable-testing --filter 'CLIDocsTests/cliReferenceIsGenerated'
