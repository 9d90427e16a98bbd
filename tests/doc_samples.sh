#!/usr/bin/env bash
# Every sample output in README.md and docs/*.md comes from the command that
# prints it, so none can go stale: a marked sample is run and compared.
#
# A sample is a fenced block right after a marker line
#
#   <!-- sample: MODE [| OPTION]... -->
#
# Its `$ ` lines are commands (run in order, in one fresh directory, with
# `kcal` and `./kcal` the kcal under test); the lines after each are what
# that command prints. A block with no `$ ` line gets its command from the
# `run:` option, and all of the block is what it prints. A line `...` in a
# sample stands for any number of lines. MODE says how closely the output
# must match:
#   exact    line for line (trailing blanks aside): deterministic commands
#   shape    numbers masked (every digit run is `#`), absolute paths too
#            (`/PATH`), blanks collapsed: the header lines, column names
#            and row names of commands that measure (bench, profile,
#            tune), not their times
#   choices  as shape, and the algorithm ids a measurement or a model chose
#            masked too (`ALG`), ranges and sizes (`0..2047`, `4M..`, `*`)
#            are `#`, and consecutive lines that then read alike count as
#            one: the rows of a selection table or a stats table
#   none: WHY  not checked (say why)
# OPTIONS (each after " | "):
#   stdout        compare stdout only (else stdout and stderr as printed;
#                 progress lines, which depend on timing, are dropped)
#   setup: SH     shell run first in the directory ($ROOT: the tree;
#                 kcoll_example builds docs/libkcoll.md's example as ./scatter)
#   env: A=B ...  exported for the setup and every command
#   run: SH       the command of a block without `$ ` lines (its exit status
#                 is not checked: such blocks are usually error messages)
#   adds: ARGS    options the test adds after `kcal <command>` to keep the
#                 run short (--iterations, --seconds)
#   needs: WHAT   comma-separated: mpi (mpirun and the MPI programs), mpich
#                 (its build), perf (perf record -a works), or a program
#                 on PATH (hpcc, mpiexec.mpich): skipped, and said so,
#                 without it
# Commands print stderr and stdout; a sample shows stderr's lines first
# (as kcal writes its notes before its results). In shape and choices
# modes this machine's host name reads as `vm`, the samples' machine.
# A `$ ` command must exit 0. A fenced block that looks like output (a `$ `
# line, or lines starting `kcal <command>: `, `kcoll: ` or `kcoll stats`)
# and has no marker fails the test. Every link between the pages must
# land: the file exists and the #anchor is one of its headings (GitHub's
# slugs). Arguments FILE[:LINE] run only those samples (links: all).
set -u
cd "$(dirname "$0")/.." || exit 1
command -v python3 >/dev/null || { echo "python3 not found"; exit 77; }
export ROOT=$PWD
export KCAL=${KCAL:-$ROOT/kcal}
export BUILD=${BUILD:-$ROOT/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
unset KCAL_PARAMS KCOLL_TABLE KCOLL_STATS KCOLL_STRICT KCOLL_SIMULATE_NO_CMA KCAL_MPI KCAL_MPIRUN
exec python3 - "$@" <<'PY'
import difflib, functools, os, re, shutil, socket, subprocess, sys, tempfile, time

ROOT = os.environ["ROOT"]
FILES = ["README.md"] + sorted("docs/" + f for f in os.listdir("docs") if f.endswith(".md"))
only = sys.argv[1:]

# Algorithm ids for `choices`: the registry's (the reductions' among
# them), and the rows that are not algorithms (the MPI library, libkcoll's
# own choice, the copy limit).
ALGS = set(re.findall(r"^KCAL_ALGORITHM\(\w+,\s*(\w+),", open("model/algorithms.def").read(), re.M))
ALGS |= {"mpi", "auto", "limit", "local", "mpi_flat"}
if len(ALGS) < 10:
    sys.exit("doc_samples: no algorithm ids read from model/algorithms.def")

NUM = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
PROGRESS = re.compile(r"^kcal [a-z]+: \[[^]]*\] +[0-9]+%")
OPTION_SEP = re.compile(r" \| (?=(?:stdout|setup:|run:|adds:|needs:|env:))")
LOOKS_LIKE_OUTPUT = re.compile(r"^(\$ |kcal [a-z]+: |kcoll: |kcoll stats)")

def norm_token(tok, mode):
    if mode == "choices":
        m = re.fullmatch(r"([a-z_][a-z0-9_]*)(:[0-9]+)?([,;)]?)", tok)
        if m and m.group(1) in ALGS:
            return "ALG" + m.group(3)
        if m and m.group(1).startswith("two_level"):
            return "ALG" + m.group(3)
        if re.fullmatch(r"[0-9KMGT.]*[0-9][0-9KMGT.]*|\*", tok):
            return "#"
    tok = re.sub(r"^(\(?)/[^\s),;:]\S*?([),;:]*)$", r"\1/PATH\2", tok)
    return NUM.sub("#", tok)

def normalize(lines, mode):
    if mode == "exact":
        return [l.rstrip() for l in lines]
    out = []
    for l in lines:
        if l.strip() == "...":
            out.append("...")
            continue
        n = " ".join(norm_token(t, mode) for t in l.split())
        if mode == "choices" and out and out[-1] == n:
            continue
        out.append(n)
    return out

def matches(want, got):
    """want may hold '...' (any number of lines); the rest line for line."""
    memo = {}
    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(want):
            r = j == len(got)
        elif want[i] == "...":
            r = any(m(i + 1, k) for k in range(j, len(got) + 1))
        else:
            r = j < len(got) and want[i] == got[j] and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r
    sys.setrecursionlimit(100000)
    return m(0, 0)

@functools.lru_cache(maxsize=None)
def have(what):
    if what == "mpi":
        return shutil.which("mpirun") is not None and os.path.exists(os.environ["BUILD"] + "/kcal-bench-mpi")
    if what == "mpich":
        return shutil.which("mpiexec.mpich") is not None and os.path.exists(ROOT + "/build-mpich/kcal-bench-mpi")
    if what == "perf":  # as tests/profile_cli.sh: can it record every CPU?
        if shutil.which("perf") is None:
            return False
        d = tempfile.mkdtemp(prefix="doc_samples.perf.")
        try:
            return subprocess.run(["perf", "record", "-a", "-e", "cpu-clock", "-q", "-o",
                                   d + "/pre.data", "--", "true"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode == 0
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return shutil.which(what) is not None

def samples(path):
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        body = lines[start + 1:j]
        marker = re.fullmatch(r"<!-- sample: (.*) -->", lines[start - 1]) if start > 0 else None
        yield start + 1, marker.group(1) if marker else None, body
        i = j + 1

# kcal: the kcal under test. kcoll_example: docs/libkcoll.md's example
# program, built here as ./scatter against the tree's libkcoll.so (as
# tests/algos_example.sh extracts it).
PRELUDE = r'''kcal() { "$KCAL" "$@"; }
kcoll_example() {
  awk '/^Example \(`scatter.c`\):/ {f = 1; next} f && /^```c$/ {on = 1; next} on && /^```$/ {exit} on' \
    "$ROOT/docs/libkcoll.md" >scatter.c && mpicc scatter.c -I"$ROOT/algos" -L"$ROOT/algos" -lkcoll -o scatter
}
'''
HOST = socket.gethostname()

def lines_of(b):
    out = b.decode(errors="replace").split("\n")
    if out and out[-1] == "":
        out.pop()
    return out

def run(cmd, cwd, stdout_only, env="", timeout=600):
    """(status, the lines compared, stderr as text)."""
    pre = PRELUDE + ("export %s\n" % env if env else "")
    # TMPDIR is the sample's directory: a failing kcal bench keeps the
    # launcher's output in a file there, removed with the directory.
    p = subprocess.run(["bash", "-c", pre + cmd], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout,
                       env=dict(os.environ, TMPDIR=cwd))
    out, err = lines_of(p.stdout), lines_of(p.stderr)
    got = out if stdout_only else err + out
    return p.returncode, [l for l in got if not PROGRESS.match(l)], "\n".join(err)

def unhost(lines):
    if HOST in ("", "vm"):
        return lines
    pat = re.compile(r"\b%s\b" % re.escape(HOST))
    return [pat.sub("vm", l) for l in lines]

def commands(body):
    """[(command, expected lines)] of the block's `$ ` lines."""
    segs, k = [], 0
    while k < len(body):
        if body[k].startswith("$ "):
            cmd = body[k][2:]
            while cmd.endswith("\\") and k + 1 < len(body):
                k += 1
                cmd = cmd[:-1] + " " + body[k].strip()
            segs.append([cmd, []])
        elif segs:
            segs[-1][1].append(body[k])
        k += 1
    return segs

def check(path, line, spec, body):
    # " | " before an option's name separates options (a shell pipe in a
    # snippet is not one).
    parts = [p.strip() for p in OPTION_SEP.split(spec)]
    mode, opts = parts[0], {}
    for p in parts[1:]:
        key, _, val = p.partition(":")
        opts[key.strip()] = val.strip()
    if mode.startswith("none"):
        if not mode.startswith("none:") or len(mode) < 10:
            return "FAIL", "a `none` sample must say why (none: WHY)"
        return "none", mode[5:].strip()
    if mode not in ("exact", "shape", "choices"):
        return "FAIL", "unknown mode '%s'" % mode
    for need in opts.get("needs", "").split(","):
        if need.strip() and not have(need.strip()):
            return "skip", "needs %s" % need.strip()
    stdout_only = "stdout" in opts
    tmp = tempfile.mkdtemp(prefix="doc_samples.")
    try:
        if "setup" in opts:
            rc, out, _ = run(opts["setup"], tmp, False, opts.get("env", ""))
            if rc != 0:
                return "FAIL", "setup exited %d: %s" % (rc, "\n".join(out[-10:]))
        segs = commands(body)
        if not segs:
            if "run" not in opts:
                return "FAIL", "no `$ ` command in the block and no run: option"
            segs = [[None, body]]
        done = []
        for cmd, want in segs:
            if cmd is None:
                shown = opts["run"]
                rc, got, err = run(opts["run"], tmp, stdout_only, opts.get("env", ""))
            else:
                shown = cmd
                cmd = re.sub(r"(^|[\s;|(&])\./kcal(?=\s)", r"\1kcal", cmd)
                if "adds" in opts:
                    cmd = re.sub(r"\bkcal ([a-z]+)", r"kcal \1 " + opts["adds"], cmd, count=1)
                key = (opts.get("setup"), opts.get("env"), tuple(done), cmd, stdout_only)
                if key in cache:
                    rc, got, err = cache[key]
                else:
                    rc, got, err = cache[key] = run(cmd, tmp, stdout_only, opts.get("env", ""))
                done.append(cmd)
                if rc != 0:
                    return "FAIL", "`%s` exited %d:\n%s" % (cmd, rc, "\n".join((got + err.split("\n"))[-15:]))
            if mode != "exact":
                got = unhost(got)
            w, g = normalize(want, mode), normalize(got, mode)
            if not matches(w, g):
                diff = list(difflib.unified_diff(w, g, "documented", "printed now", lineterm="", n=2))
                return "FAIL", "`%s` (%s) prints otherwise:\n%s" % (shown, mode, "\n".join(diff[:60]))
        return "ok", ""
    except subprocess.TimeoutExpired:
        return "FAIL", "timed out"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

def slug(heading):
    h = re.sub(r"[`*]", "", heading.strip().lower())
    return "".join(c for c in h if c.isalnum() or c in "-_ ").replace(" ", "-")

def anchors(path):
    seen, out, fence = {}, set(), False
    for l in open(path).read().split("\n"):
        if l.startswith("```"):
            fence = not fence
        if fence or not re.match(r"#{1,6} ", l):
            continue
        a = slug(l.lstrip("#"))
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else "%s-%d" % (a, n))
    return out

def bad_links(path):
    base, errs, kept, fence = os.path.dirname(path), [], [], False
    for l in open(path).read().split("\n"):
        if l.startswith("```"):
            fence = not fence
        elif not fence and not l.startswith("<!-- sample:"):
            kept.append(l)
    text = "\n".join(kept)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        f, _, a = target.partition("#")
        dest = os.path.normpath(os.path.join(base, f)) if f else path
        if not os.path.exists(dest):
            errs.append("%s: no such file" % target)
        elif a and dest.endswith(".md") and a not in anchors(dest):
            errs.append("%s: no heading with that anchor in %s" % (target, dest))
    return errs

link_fails = 0
for path in FILES:
    for e in bad_links(path):
        link_fails += 1
        print("FAIL %s: link %s" % (path, e))

# Output of a command sequence already run (the same sample shown in two
# places runs once); only for blocks whose earlier commands were the same.
cache = {}
counts = {"ok": 0, "FAIL": 0, "skip": 0, "none": 0}
for path in FILES:
    for line, spec, body in samples(path):
        where = "%s:%d" % (path, line)
        if only and not any(where == o or path == o for o in only):
            continue
        if spec is None:
            if any(LOOKS_LIKE_OUTPUT.match(l) for l in body):
                counts["FAIL"] += 1
                print("FAIL %s: output without a <!-- sample: ... --> marker" % where)
            continue
        start = time.time()
        verdict, why = check(path, line, spec, body)
        counts[verdict] += 1
        label = {"ok": "ok  ", "FAIL": "FAIL", "skip": "skip", "none": "none"}[verdict]
        print("%s %s (%s, %.1f s)%s" % (label, where, OPTION_SEP.split(spec)[0].split(":")[0],
                                      time.time() - start, ": " + why if why else ""))
        sys.stdout.flush()
print("doc samples: %d ok, %d failed, %d skipped, %d not checked; %d broken links"
      % (counts["ok"], counts["FAIL"], counts["skip"], counts["none"], link_fails))
sys.exit(1 if counts["FAIL"] or link_fails else 0)
PY
