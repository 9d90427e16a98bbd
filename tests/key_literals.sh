#!/usr/bin/env bash
# One home per params key (issue 31): a key's name is written in
# model/keys.def only; code names it through model/keys.h (KCAL_PK_<name>,
# kcal_key_name, kcal_key_family_name). This looks for every key's name,
# and every family's name pattern ("mpi_%s_below", "%s_stderr"), as a
# string literal in the code.
set -u
cd "$(dirname "$0")/.."
KCAL=$(realpath "${KCAL_RELEASE:-${KCAL:-./kcal}}")
dirs=(model fit reports cmd algos probe tune bench common interpose)
names=$("$KCAL" doc-tables key-names) || { echo "FAIL: kcal doc-tables key-names" >&2; exit 1; }
[ "$(wc -l <<<"$names")" -ge 60 ] || { echo "FAIL: too few key names: $names" >&2; exit 1; }

# The same words used for other things, each said why:
allowed=(
  'required_argument'            # getopt: the --machine option
  '"probe", kcal_probe_main'     # the probe command's name
  'CMD = "probe"'                # ... as its messages say it
  'kcal_launch_save_err\(&r, "probe"'  # ... and its log's name
  'PROBE_CMD "probe"'            # ... as the split command's files say it
  '^fit/raw.h:.*KCAL_PHASE_'     # a raw file's phase names (lock, sm_flag)
  '^bench/bench_mpi.c:.*"oversubscribed"$'  # a CSV column (common/columns.h)
  '^cmd/profile_cmd.c:.*"oversubscribed"$'  # the same CSV column
  '^reports/join_read.c:.*"oversubscribed"'      # the report reader's columns
  '^reports/report_doc.c:.*\{"cores", cores\}'     # the report's machine rows
  '^reports/report_doc.c:.*\{"sockets", sockets\}' # (hwloc's, not the params')
  '^reports/report_doc.c:.*\{"kernel", m->kernel\}'
  ':[0-9]+: *(/\*|\*)'           # comments
)
found=$(while read -r k; do
  grep -rnF --include='*.c' --include='*.h' -- "\"$k\"" "${dirs[@]}"
done <<<"$names" | grep -v '^model/keys\.' | sort -u)
for a in "${allowed[@]}"; do
  found=$(grep -vE -- "$a" <<<"$found" || true)
done
if [ -n "$found" ]; then
  echo "FAIL: params keys spelled outside model/keys.def (use KCAL_PK_*, kcal_key_name):" >&2
  echo "$found" >&2
  exit 1
fi
echo "key_literals: $(wc -l <<<"$names") names, none spelled outside model/keys.def"
