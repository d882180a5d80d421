/// What `bgbench --help` prints, and each command's own usage (`bgbench COMMAND --help`,
/// `bgbench help COMMAND`), built from one text per command so the two never disagree.
extension Command {
    /// One command's part of the help: its lines of the usage block (each starting with
    /// `bgbench`, continuation lines indented to line up under "usage: ") and the
    /// paragraphs that describe its options, if any.
    struct Usage {
        var synopsis: String
        var details: String?
    }

    static let usages: [String: Usage] = [
        "run": Usage(synopsis: """
            bgbench [run] [options]      simulate, print a summary, write reports
            """, details: runOptions),
        "sweep": Usage(synopsis: """
            bgbench sweep --set PATH=V1,V2,... [--set ...] [run options]
                                         the cartesian grid of the values, every point a
                                         full run on the same seed, into one folder: every
                                         report file with a column per parameter, long.csv,
                                         a Pareto column within each world, run.json
            """, details: """
            sweep takes every run option but --version (--out default: Reports/sweep); a --set
            with a comma-separated list of values is an axis of the grid. Parameters under
            'policies.' are design axes, the others environment axes: summary.csv's pareto
            column compares only rows of the same environment values and archetype
            (Reports/README.md, "Sweeps").

            """ + runOptions),
        "frontier": Usage(synopsis: """
            bgbench frontier [--knob POLICY=V1,V2,... ...] [run options]
                                         every policy at every value of its knob and the
                                         baseline at its own point, on the same users:
                                         fresh opens at matched energy (frontier.csv)
            """, details: """
            frontier options (docs/policies.md, "The frontier"):
              --policy NAME[,NAME...]  policies, or 'all' (default: all)
              --knob POLICY=V1,V2,...  the values of POLICY's knob (default: its declared
                                       sweep, docs/scenario.md; repeatable, one per policy)
              --baseline-policy NAME   the policy whose point at the scenario's own parameters
                                       every arm is compared with (default: fixed when it
                                       runs, else the first policy)
              --energy-levels J,...    J/day at which each curve is read besides the
                                       baseline's own (default: 10,20,40)
              --energy-range LOW,HIGH  J/day range of the areas under the curves (default:
                                       the baseline policy's curve range, else the range
                                       every curve spans)
              --replications R         R seeds; the intervals are then across the seeds
              --out DIR                report folder (default: Reports/frontier)
            and the run options --days, --devices, --seed, --threads, --scenario, --set,
            --opens-trace, --warmup-days, --force, --check-invariants, --shard and --quiet.
            """),
        "plot": Usage(synopsis: """
            bgbench plot DIR [--force]   draw a report folder as PNG files (python3,
                                         matplotlib, pandas)
            """, details: """
            plot options:
              --force                  overwrite PNG files of the folder that bgbench did
                                       not draw (without it, such a file is refused)
            """),
        "list": Usage(synopsis: """
            bgbench list                 policies, platforms and scenarios
            """),
        "scenario": Usage(synopsis: """
            bgbench scenario [--scenario FILE|NAME] [--set PATH=VALUE ...] [--policy NAME[,NAME...]]
                             [--complete | --markdown]
                                         print the resolved scenario of a run of --policy
                                         (default: adaptive): the parameters it uses
            """, details: """
            scenario options:
              --scenario FILE|NAME     scenario JSON or a preset's name (default: built-in)
              --set PATH=VALUE         override one scenario field by its JSON path (repeatable)
              --policy NAME[,NAME...]  the run's policies, or 'all' (default: adaptive)
              --complete               every registered component's parameters (default.json)
              --markdown               the parameter tables of docs/scenario.md
            """),
        "validate": Usage(synopsis: """
            bgbench validate FILE        check a scenario JSON or an opens trace CSV and
                                         report every problem at once
            """, details: """
            validate: FILE is a scenario if it ends in .json, a trace if it ends in .csv, else
            a scenario if its first character other than a space is '{'; exit 0 and one 'ok:'
            line when it is valid, 65 and an 'error:' line per problem when not.
            """),
        "convert-lsapp": Usage(synopsis: """
            bgbench convert-lsapp IN.tsv [--app NAME] --out OUT.csv [--force]
                                         turn an LSApp-style TSV log into an opens trace:
                                         one app's opens, or every app's
            """, details: """
            convert-lsapp options:
              --app NAME               only this app's opens (default: every app's open counts)
              --out FILE               the trace CSV to write (required; an existing FILE
                                       only if it is an opens trace, never IN.tsv)
              --force                  overwrite --out whatever it is
            """),
        "bench": Usage(synopsis: """
            bgbench bench [--quick] [--workloads NAME,...] [--memory] [--repeats N] [--threads T]
                          [--csv FILE [--force]] [--baseline FILE]
                                         the speed benchmark: device-days/s, events/s, ns/event
                                         and peak memory per workload, on 1 thread and on all;
                                         exit 1 below 85 % of a --baseline CSV's device-days/s
            """, details: """
            bench options (Benchmarks/README.md):
              --quick                  a tenth of the devices of each workload
              --workloads NAME,...     only these workloads (default: all): r1/fixed,
                                       default/fixed, default/adaptive, default/usage,
                                       default/histogram, default/nhpp, default/bayes,
                                       default/kde, default/logistic
              --memory                 R1 with 100,000 devices × 365 days, once
              --repeats N              runs of each workload, 1...100 (default: 3)
              --threads T              only this thread count, 0 = all cores (default: 1 and all)
              --csv FILE               also write the results as CSV (an existing FILE
                                       only if it is a bench CSV, never --baseline's)
              --force                  overwrite --csv whatever it is
              --baseline FILE          compare with a bench CSV made on this machine
            """),
        "check": Usage(synopsis: """
            bgbench check --baseline FILE_OR_DIR --current DIR [--tolerance METRIC=PCT ...]
                          [--junit FILE [--force]] [--exact] [--update [--force] [--accept-configuration]] [--ab]
                                         compare a run's reports with a baseline's (CI): exit 1
                                         on a significant regression, or any difference with
                                         --exact; --update makes the current run the baseline;
                                         --ab compares two configurations, no verdict
            """, details: checkOptions),
        "merge": Usage(synopsis: """
            bgbench merge --out DIR SHARD_DIR... | PARENT
                                         add the shard folders of a run, sweep or
                                         frontier made with --shard K/N into the whole
                                         one's report, byte for byte what a single
                                         process writes
            """, details: """
            merge options (README.md, "Beyond one machine"):
              SHARD_DIR...             the shard folders, every shard 0...N-1 once; or one
                                       PARENT folder whose sub-folders are the shards
              --out DIR                report folder (required), replaced whole when done
              --force                  replace --out whole, whatever it holds (or an input)
              --quiet                  accepted, as by run (merge draws no progress line)
            A shard of another run (scenario, seed, policies, fleet, days, version...), a
            missing, repeated or incomplete shard is refused (exit 65) with the folder named.
            """),
        "help": Usage(synopsis: """
            bgbench help [COMMAND]       this help, or one command's usage
            """),
    ]

    static let runOptions = """
        run options:
          --policy NAME[,NAME...]  policies to compare, or 'all' (default: adaptive)
          --days D                 days to simulate, 1...36500 (default: 30)
          --devices N              devices in the fleet, 1...100000000 (default: 1000)
          --seed S                 run seed, 0...2^64-1 (default: 1)
          --threads T              worker threads, 0 = all cores (default: 0)
          --scenario FILE|NAME     scenario JSON, or a preset's name (bgbench list); a
                                   file at that path wins (default: the built-in default
                                   scenario, the same as preset 'default')
          --set PATH=VALUE         override one scenario field by its JSON path, e.g.
                                   --set policies.fixed.interval=30m (repeatable)
          --opens-trace FILE       replay the opens of a trace CSV instead of drawing
                                   them (Datasets/README.md, "Traces"): one device per
                                   trace device, --days defaults to the trace's span
          --warmup-days W          leave the first W days out of every metric (default: 0)
          --out DIR                report folder (default: Reports/latest), replaced whole
                                   when the run has written every file
          --force                  replace --out whole, whatever it holds (without it,
                                   only the files of bgbench's own earlier report of the
                                   same kind are replaced: Reports/README.md)
          --check-invariants       check every device's counts against their identities
                                   (requests, runs, denials, opens) and stop at the
                                   first broken one: a soak's checking mode
          --per-device             also write devices.csv: every device's totals
          --trace-devices K        also write events.csv: every event of the first K
                                   devices with its reason code (1...1000)
          --baseline-policy NAME   the policy the others are compared with, device by
                                   device (paired.csv, the terminal's paired table;
                                   default: fixed when it runs, else the first policy;
                                   written whenever more than one policy runs)
          --replications R         run R independent seeds (S, S+1, ...) and write
                                   replications.csv: each metric across the seeds
          --quiet                  no progress line (it is drawn only on a terminal)
          --shard K/N              simulate only shard K (0...N-1) of the fleet: its blocks
                                   of 64 devices (a sweep: of every point's fleet); --out
                                   also gets shard.state, which 'bgbench merge' adds up
                                   (run, sweep and frontier; Scripts/cluster/)
          --shard auto[/N]         K and N from a Slurm array task (SLURM_ARRAY_TASK_*) or
                                   a Kubernetes Indexed Job (JOB_COMPLETION_INDEX; N from
                                   /N or BGBENCH_SHARD_COUNT)
        """

    static let checkOptions = """
        check options (README.md, "In CI"):
          --baseline FILE_OR_DIR   the baseline: a report folder (or a file in one), or a
                                   folder of report folders, matched with --current's by name
          --current DIR            the report folder (or folder of them) to check
          --tolerance METRIC=PCT   a change of METRIC (a summary.csv column) within PCT % of
                                   the baseline is no change (default: 1; repeatable)
          --junit FILE             also write JUnit XML, a test case per metric (an
                                   existing FILE only if it is check's own JUnit XML)
          --exact                  any difference in any report file fails (needs the same
                                   seed; run.json's execution and build fields do not count)
          --update                 replace the baseline folder whole with the current
                                   run's report files (refused for another configuration,
                                   exit 65)
          --force                  with --update: replace the baseline folder whole,
                                   whatever it holds; with --junit: overwrite FILE
                                   whatever it is
          --accept-configuration   with --update: the configuration change is meant
          --ab                     A/B: --baseline A and --current B, two configurations
                                   on the same seed and fleet, compared device by device
                                   with 95 % intervals and no verdict (needs --per-device)
        """

    /// The order of the usage block in the full help.
    static let helpOrder = ["run", "sweep", "frontier", "merge", "plot", "list", "scenario", "validate", "convert-lsapp", "bench", "check"]

    /// `bgbench --help`: every command's usage line, then the details of the options.
    static let help: String = {
        var text = """
            bgbench: simulate background app refresh on a fleet of virtual phones and score
            freshness at each open against energy, timeout kills and throttling.


            """
        for (i, name) in helpOrder.enumerated() {
            text += (i == 0 ? "usage: " : "       ") + indented(usages[name]!.synopsis) + "\n"
        }
        text += "       bgbench --help | --version    (bgbench COMMAND --help: one command's usage)\n"
        for name in ["run", "frontier", "merge", "check", "validate", "convert-lsapp", "bench"] {
            text += "\n" + usages[name]!.details! + "\n"
        }
        text += """

            exit codes: 0 done, 64 usage error, 65 bad scenario, trace or LSApp data (merge: shard
            folders it refuses), 66 cannot read an input file, report folder or shard folder,
            69 plot's Python packages missing, 73 cannot write reports, 75 another bgbench is
            writing the same folder, 130 and 143 interrupted (every output as before).
            check and bench --baseline: 1 a regression, a difference (--exact) or a slowdown; 65 a
            baseline that does not match or parse; 66 a missing report folder or file.

            """
        return text
    }()

    /// `bgbench COMMAND --help`: the command's usage lines and its options.
    static func usage(of command: String) -> String {
        let usage = usages[command]!
        return "usage: " + indented(usage.synopsis) + "\n" + (usage.details.map { "\n" + $0 + "\n" } ?? "")
    }

    /// The synopsis with its continuation lines indented by the width of "usage: ".
    static func indented(_ synopsis: String) -> String {
        synopsis.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset == 0 ? String($0.element) : "       " + $0.element }.joined(separator: "\n")
    }
}
