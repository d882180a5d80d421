#!/usr/bin/env python3
"""The mutation catalogue: plants each one-line bug of Scripts/mutants.jsonl in turn, runs
the tests that should catch it, puts the file back, and prints the kill rate and the
survivors (issue 29 item 4).

Each line of mutants.jsonl is one mutant: id, area, file, find (text on one line of the
file, found there exactly once), replace, suites (a `swift test --filter` regex naming the
suites most likely to catch it) and why (the real bug it stands for). For each mutant:
write the mutated file, build the tests, run the named suites; a failure or a crash kills
the mutant, so does a timeout (listed as such); a mutant that does not build is a defect
of the list, reported and left out of the rate. The original bytes are always written
back, also on Ctrl-C or SIGTERM.

    python3 Scripts/mutate.py --check                    # every entry applies; builds nothing
    python3 Scripts/mutate.py --area energy              # after a change to an area
    python3 Scripts/mutate.py --only merge-misses-last-shard,leftover-old-folder-kept
    python3 Scripts/mutate.py --whole-suite-for-survivors --timeout 3600   # the full catalogue

Options: --release builds with -c release -Xswiftc -enable-testing (slower to build,
faster tests); --whole-suite-for-survivors runs the whole `swift test` for a mutant the
named suites let through; --timeout SECONDS bounds each test command (default 1800).
The build and test output of each mutant is in .build/mutants/ID.log.

Not part of CI: it takes about 300 minutes for the whole list on a 2-core machine (each
mutant rebuilds the package and runs its suites: 3 minutes for a CLI mutant and its
small suite, measured; more for the simulator's slower suites, estimated). It refuses to
start when git shows one of the mutants' files modified. Exit 1 when the kill rate is
below 90 %.
A new survivor is either killed by a new test or documented as equivalent in its `why`.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOGUE = os.path.join(ROOT, "Scripts", "mutants.jsonl")
LOGS = os.path.join(ROOT, ".build", "mutants")
AREAS = ["engine", "model", "platforms", "policies", "energy", "metrics", "exact-sums", "reports",
         "comparison", "shards-merge", "folder-pipeline", "cli"]
KEYS = ["id", "area", "file", "find", "replace", "suites", "why"]
BAR = 90.0


def load():
    mutants = []
    with open(CATALOGUE, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                mutant = json.loads(line)
                mutant["line"] = number
                mutants.append(mutant)
    return mutants


def suite_names(cache=[]):
    """The `struct NameTests` declared under Tests/ (the names --filter matches)."""
    if not cache:
        for folder, _, names in os.walk(os.path.join(ROOT, "Tests")):
            for name in names:
                if name.endswith(".swift"):
                    text = open(os.path.join(folder, name), encoding="utf-8").read()
                    cache.extend(re.findall(r"\bstruct (\w+Tests)\b", text))
    return set(cache)


def problems(m, seen):
    """What is wrong with one entry (empty when it applies)."""
    out = []
    missing = [k for k in KEYS if not isinstance(m.get(k), str)]
    if missing:
        return ["missing or not text: " + ", ".join(missing)]
    if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m["id"]):
        out.append("id is not short-kebab-case")
    if m["id"] in seen:
        out.append("id used twice")
    if m["area"] not in AREAS:
        out.append(f"area '{m['area']}' is not one of {', '.join(AREAS)}")
    if "\n" in m["find"] or "\n" in m["replace"] or not m["find"]:
        out.append("find and replace must be (part of) one line, find not empty")
    if m["find"] == m["replace"]:
        out.append("replace equals find")
    if not m["suites"] or not m["why"]:
        out.append("suites and why must not be empty")
    else:
        try:
            re.compile(m["suites"])
        except re.error as error:
            out.append(f"suites is not a regex: {error}")
        unknown = [name for name in m["suites"].split("|") if name not in suite_names()]
        if unknown:
            out.append("suites names no suite of Tests/: " + ", ".join(unknown))
    path = os.path.join(ROOT, m["file"])
    if not m["file"].startswith("Sources/") or not os.path.isfile(path):
        out.append(f"no file {m['file']} under Sources/")
    else:
        count = open(path, "rb").read().count(m["find"].encode("utf-8"))
        if count != 1:
            out.append(f"find occurs {count} times in {m['file']} (expected once)")
    return out


def descendants(pid):
    """Every process below `pid` (Linux /proc): swift test starts the test bundle in a
    session of its own, which killing the command's group does not reach."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def run(command, timeout, log):
    """Runs a command in its own process group, its output appended to `log`; returns its
    exit code, or None on a timeout. The group and every process below the command are
    killed on a timeout and on any interruption (a hung test bundle once ran on for an
    hour after its mutant's timeout)."""
    log.write(("$ " + " ".join(command) + "\n").encode())
    log.flush()
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        if process.poll() is None:
            below = descendants(process.pid)
            os.killpg(process.pid, signal.SIGKILL)
            for pid in below:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            process.wait()


def verdict(m, args):
    """Applies the mutant, builds, tests; the file's bytes are put back in any case."""
    path = os.path.join(ROOT, m["file"])
    with open(path, "rb") as f:
        original = f.read()
    find, replace = m["find"].encode("utf-8"), m["replace"].encode("utf-8")
    if original.count(find) != 1:
        return "not applied (find is not once in the file)"
    release = ["-c", "release"] if args.release else []
    build = ["swift", "build", "--build-tests"] + (release + ["-Xswiftc", "-enable-testing"] if args.release else [])
    test = ["swift", "test", "--skip-build"] + release
    os.makedirs(LOGS, exist_ok=True)
    with open(os.path.join(LOGS, m["id"] + ".log"), "wb") as log:
        try:
            with open(path, "wb") as f:
                f.write(original.replace(find, replace))
            if run(build, None, log) != 0:
                return "does not compile"
            code = run(test + ["--filter", m["suites"]], args.timeout, log)
            if code != 0:
                return "killed (timeout)" if code is None else "killed"
            if args.whole_suite_for_survivors:
                code = run(test, args.timeout, log)
                if code != 0:
                    return "killed (whole suite, timeout)" if code is None else "killed (whole suite)"
            return "survived"
        finally:
            # No second Ctrl-C or SIGTERM while the original bytes go back.
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
            with open(path, "wb") as f:
                f.write(original)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def main():
    parser = argparse.ArgumentParser(description="Runs the mutation catalogue (Scripts/mutants.jsonl).")
    parser.add_argument("--check", action="store_true", help="check that every entry applies; build nothing")
    parser.add_argument("--only", help="comma-separated mutant ids")
    parser.add_argument("--area", choices=AREAS, help="only this area's mutants")
    parser.add_argument("--release", action="store_true", help="build and test in release (-enable-testing)")
    parser.add_argument("--whole-suite-for-survivors", action="store_true",
                        help="run the whole suite for a mutant the named suites let through")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds for each test command (default 1800)")
    args = parser.parse_args()

    mutants = load()
    seen, broken = set(), 0
    for m in mutants:
        for problem in problems(m, seen):
            print(f"mutants.jsonl:{m['line']}: {m.get('id', '?')}: {problem}", file=sys.stderr)
            broken += 1
        seen.add(m.get("id"))
    if args.only:
        wanted = args.only.split(",")
        unknown = [i for i in wanted if i not in seen]
        if unknown:
            sys.exit("unknown mutant ids: " + ", ".join(unknown))
        mutants = [m for m in mutants if m["id"] in wanted]
    if args.area:
        mutants = [m for m in mutants if m["area"] == args.area]
    if args.check:
        counts = {a: sum(1 for m in mutants if m["area"] == a) for a in AREAS}
        print(f"{len(mutants)} mutants: " + ", ".join(f"{a} {n}" for a, n in counts.items()))
        if broken:
            sys.exit(f"{broken} problems in {CATALOGUE}")
        print("every entry applies")
        return
    if broken:
        sys.exit(f"{broken} problems in {CATALOGUE} (see --check)")
    files = sorted({m["file"] for m in mutants})
    dirty = subprocess.run(["git", "status", "--porcelain", "--"] + files, cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout
    if dirty.strip():
        sys.exit("refusing to start: the mutants' files have changes git shows (commit or stash them):\n" + dirty)

    def terminated(signum, frame):
        raise KeyboardInterrupt  # as Ctrl-C: the `finally` that restores the file runs
    signal.signal(signal.SIGTERM, terminated)
    results, interrupted = [], False
    try:
        for m in mutants:
            start = time.monotonic()
            print(f"{m['id']} ({m['area']}) ...", flush=True)
            results.append((m, verdict(m, args), time.monotonic() - start))
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: the file is restored; the results so far:", file=sys.stderr)

    for m, v, seconds in results:
        print(f"{m['id']:40} {m['area']:16} {v:32} {seconds:7.0f} s")
    rated = [(m, v) for m, v, _ in results if v.startswith("killed") or v == "survived"]
    killed = sum(1 for _, v in rated if v.startswith("killed"))
    rate = 100.0 * killed / len(rated) if rated else 0.0
    print(f"kill rate: {killed} of {len(rated)} ({rate:.1f} %)")
    for m, v, _ in results:
        if v == "survived":
            print(f"survivor {m['id']}: {m['why']}")
        elif not v.startswith("killed"):
            print(f"defect of the list, {m['id']}: {v}")
    sys.exit(130 if interrupted else 0 if rated and rate >= BAR else 1)


if __name__ == "__main__":
    main()
