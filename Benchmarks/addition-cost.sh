#!/usr/bin/env bash
# What an addition costs (issue 23 item 11): in a temporary clone of HEAD, adds a command, an
# option and a report file the way docs/ARCHITECTURE.md's table says, regenerates the
# generated documents with their own tests, builds, runs the suites that check the
# declarations, and counts the files each addition touched (written by hand, generated,
# tests). A place the table forgets shows up as a build or test failure here, and a place
# it counts that is not needed as a smaller count. Not in CI: three debug builds in a fresh
# clone, about 10 minutes on a 2-core machine.
#
#   Benchmarks/addition-cost.sh            # prints one line per addition
#   Benchmarks/addition-cost.sh --keep     # keeps the clone and prints where it is
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
keep=false
[ "${1:-}" = "--keep" ] && keep=true

work=$(mktemp -d)
$keep || trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/bgbench"
cd "$work/bgbench"

# Builds the tests, rewrites the generated parts of the docs (the tests' BGBENCH_WRITE_README
# mode, which the docs/make-*.sh scripts use in release), and runs `suites`.
check() {
    local suites=$1
    swift build --build-tests >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
    BGBENCH_WRITE_README=1 swift test --skip-build \
        --filter 'CLIDocsTests/cliReferenceIsGenerated|ReportFilesTests/readmeFileTableIsGenerated' >/dev/null 2>&1 || true
    swift test --skip-build --filter "$suites" >"$work/test.log" 2>&1 || { grep -E "✘" "$work/test.log" | head -20; exit 1; }
}

# One line: the addition, then its files by kind, from git (tracked changes and new files).
count() {
    local what=$1 generated=$2
    local files
    files=$(git status --porcelain | awk '{print $2}' | sort)
    local tests sources docs
    tests=$(echo "$files" | grep -c '^Tests/' || true)
    docs=$(echo "$files" | grep -cE "^($generated)$" || true)
    sources=$(echo "$files" | grep -vE "^Tests/|^($generated)$" | grep -c . || true)
    printf '%-12s %d by hand (%s), %d generated (%s), %d test files (%s)\n' "$what" "$sources" \
        "$(echo "$files" | grep -vE "^Tests/|^($generated)$" | tr '\n' ' ' | sed 's/ $//')" "$docs" \
        "$(echo "$files" | grep -E "^($generated)$" | tr '\n' ' ' | sed 's/ $//')" "$tests" \
        "$(echo "$files" | grep '^Tests/' | tr '\n' ' ' | sed 's/ $//')"
    git add -A && git commit -q -m "probe: $what"
}

# A command: its file and one line in Command.all.
cat >Sources/BGBenchCLI/Hello.swift <<'EOF'
/// `bgbench hello`: a probe command of Benchmarks/addition-cost.sh.
struct HelloCommand: CommandDefinition {
    struct Values { var name = "world" }
    static let name = "hello"
    static let synopsis = """
        bgbench hello [--name NAME]  greet someone (a probe)
        """
    static let defaults = Values()
    static var options: [Option<Values>] {
        [
            .value("name", "NAME", expected: "a name", help: "who to greet", shownDefault: { $0.name }) {
                values, text, _ in values.name = text
            }
        ]
    }
    static func run<Out: TextOutputStream>(_ values: Values, _ invocation: Invocation, output: inout Out) throws {
        output.write("hello, \(values.name)\n")
    }
}
EOF
sed -i 's/^        HelpCommand.self,$/        HelpCommand.self,\n        HelloCommand.self,/' Sources/BGBenchCLI/CommandDefinition.swift
# The exact-message tests that list every command ("unknown command ...: expected one of").
sed -i 's/bench, check, help/bench, check, help, hello/' Tests/BGBenchTests/CLI/CLITests.swift
check 'CLIDocsTests|OptionParserTests|CLITests'
[ "$(.build/debug/bgbench hello --name you)" = "hello, you" ] || { echo "error: bgbench hello does not greet" >&2; exit 1; }
.build/debug/bgbench hello --help | grep -q -- '--name NAME' || { echo "error: hello's help lacks --name" >&2; exit 1; }
count "a command" 'docs/cli\.md'

# An option: one declaration (and the field it sets) in an existing command's file.
sed -i 's/^    struct Values { var name = "world" }$/    struct Values { var name = "world"; var loud = false }/' Sources/BGBenchCLI/Hello.swift
sed -i 's/^            }$/            },\n            .flag("loud", \\.loud, help: "shout"),/' Sources/BGBenchCLI/Hello.swift
sed -i 's/output.write("hello, \\(values.name)\\n")/output.write((values.loud ? "HELLO, " : "hello, ") + values.name + "\\n")/' \
    Sources/BGBenchCLI/Hello.swift
check 'CLIDocsTests|OptionParserTests|CLITests'
[ "$(.build/debug/bgbench hello --loud --name you)" = "HELLO, you" ] || { echo "error: --loud does nothing" >&2; exit 1; }
count "an option" 'docs/cli\.md'

# A report file of run and sweep folders: its entry in ReportFile.all, its writer and its
# name in the run folder's file list (a sweep then writes it too; a frontier's would go in
# FrontierFiles.files as well).
python3 - <<'EOF'
import re
p = "Sources/BGBench/Reports/ReportFiles.swift"
s = open(p).read()
entry = '''    public static let probe = ReportFile(
        name: "probe.csv", format: .csv(header: ["scenario", "policy", "probe"]), folders: [.run, .sweep], when: "always",
        writer: "ReportWriter.probeCSV", readBack: .compared, what: "a probe file of Benchmarks/addition-cost.sh")
'''
s = s.replace("    public static let run = ReportFile(", entry + "    public static let run = ReportFile(", 1)
s = s.replace("        summary, daily, hourly, server,", "        summary, daily, hourly, server, probe,", 1)
open(p, "w").write(s)
p = "Sources/BGBench/Reports/ReportWriter.swift"
s = open(p).read()
s = s.replace("            (ReportFile.server.name, SeriesReports.serverCSV(report)),",
              "            (ReportFile.server.name, SeriesReports.serverCSV(report)),\n"
              "            (ReportFile.probe.name, probeCSV(report)),", 1)
s = s.replace("    /// The files of ``files(_:)`` but run.json",
              "    static func probeCSV(_ report: RunReport) -> String {\n"
              "        \"scenario,policy,probe\\n\" + report.results.map { \"\\(report.request.scenario.scenario.name),\\($0.policy),1\\n\" }.joined()\n"
              "    }\n\n    /// The files of ``files(_:)`` but run.json", 1)
open(p, "w").write(s)
EOF
# The exact-text tests that name a folder's files: check's list (ReportFilesTests), check
# --exact's and --update's messages and its JUnit case count (CheckTests), a sweep's files
# and messages (SweepFolderTests).
sed -i 's/"summary.csv", "daily.csv", "hourly.csv", "server.csv", "devices.csv", "events.csv",/"summary.csv", "daily.csv", "hourly.csv", "server.csv", "probe.csv", "devices.csv", "events.csv",/' \
    Tests/BGBenchTests/Reports/ReportFilesTests.swift Tests/BGBenchTests/Reports/SweepFolderTests.swift
sed -i 's/hourly.csv, server.csv, devices.csv/hourly.csv, server.csv, probe.csv, devices.csv/; s/xml.rootTests == 8 \&\&/xml.rootTests == 9 \&\&/' \
    Tests/BGBenchTests/Comparison/CheckTests.swift
sed -i 's/hourly.csv, server.csv, "$/hourly.csv, server.csv, probe.csv, "/' Tests/BGBenchTests/Reports/SweepFolderTests.swift
check 'ReportFilesTests|CheckTests|SweepTests|ShardTests'
out=$work/run
.build/debug/bgbench --days 1 --devices 2 --quiet --out "$out" >/dev/null
[ -f "$out/probe.csv" ] || { echo "error: a run wrote no probe.csv" >&2; exit 1; }
count "a report file" 'Reports/README\.md'
if $keep; then echo "clone: $work/bgbench"; fi
