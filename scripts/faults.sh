#!/usr/bin/env bash
# Fault injection on the real binaries and services: the figures of the
# fault table in docs/reliability.md. Usage: make faults. The server rows
# need make services first, and say "skipped" without it.
#
# Every scenario prints one Markdown row: what was done, what happened, and
# whether that is what docs/reliability.md promises (ok or FAIL). The
# script exits 1 if any row is FAIL. Work files live under
# .ragbaseline/faults, removed first. It kills only processes it started,
# and the Milvus Lite and MariaDB of make services, which it restarts with
# scripts/services.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${BIN:-bin}
W=.ragbaseline/faults # relative: the table shows no machine path
DOCS=${FAULT_DOCS:-2000}
rm -rf "$W" && mkdir -p "$W"
failed=0

row() { # row SCENARIO RESULT VERDICT
	printf '| %s | %s | %s |\n' "$1" "$2" "$3"
	[ "$3" = ok ] || [ "$3" = skipped ] || failed=1
}
verdict() { if "$@"; then echo ok; else echo FAIL; fi; }
hashes() { (cd "$1" && find . -type f ! -name LOCK -print0 | sort -z | xargs -0 sha256sum); }
first_line() { head -n1 "$1" | cut -c1-160 | sed 's/|/\\|/g'; }

make --no-print-directory build >/dev/null
go run ./tools/benchcorpus -docs "$DOCS" -sections 7 -out "$W/docs"
cat >"$W/cases.json" <<'EOF'
{"version": 1, "kbScope": "rag-eval", "cases": [
  {"caseId": "c1", "scenario": "chat", "query": "连接池 max_connections 排查", "expectedSources": ["doc-0000"]},
  {"caseId": "c2", "scenario": "chat", "query": "Kafka consumer lag rebalance", "expectedSources": ["doc-0017"]},
  {"caseId": "c3", "scenario": "aiops", "query": "证书 TLS 过期 告警", "expectedSources": ["doc-0019"]}
]}
EOF
snap() { # snap OUTDIR [flags...]: rag-snapshot of the three cases, no judge
	local out=$1
	shift
	"$BIN/rag-snapshot" --cases "$W/cases.json" --fixtures "$out" --skip-eval "$@"
}

echo "| scenario | result | verdict |"
echo "|---|---|---|"

# ---------------------------------------------------------------- embedded

# 1. A seed killed with SIGKILL part way, then 8 bytes flipped in the
# middle of the index log. rag-snapshot refuses with a clear error and
# leaves every file as it was. rag-seed --recreate converges.
D=$W/embedded
# The scenarios are about storage, not the embedder, so they use the
# lexical one, which needs no model.
export RAG_STORE=embedded RAG_DATA_DIR=$D RAG_EMBEDDER=local
"$BIN/rag-seed" --docs "$W/docs" >"$W/seed1.out" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null && [ "$(stat -c %s "$D/index/index.wal" 2>/dev/null || echo 0)" -lt 8000000 ]; do sleep 0.02; done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
wal=$D/index/index.wal
size=$(stat -c %s "$wal" 2>/dev/null || echo 0)
if [ "$size" -lt 1000000 ]; then
	row "seed of $DOCS docs killed with SIGKILL" "the seed finished before the log reached 8 MB ($size bytes); rerun with FAULT_DOCS larger" FAIL
else
	printf '\xde\xad\xbe\xef\xde\xad\xbe\xef' | dd of="$wal" bs=1 seek=$((size / 2)) conv=notrunc status=none
	before=$(hashes "$D/index")
	"$BIN/rag-snapshot" --cases "$W/cases.json" --fixtures "$W/fx1" --skip-eval >"$W/snap1.out" 2>"$W/snap1.err"
	code=$?
	after=$(hashes "$D/index")
	row "seed of $DOCS docs killed (SIGKILL) at a ${size}-byte log, 8 bytes flipped at its middle, then rag-snapshot" \
		"exit $code, index files unchanged: $([ "$before" = "$after" ] && echo yes || echo NO), no fixtures: $([ -e "$W/fx1" ] && echo NO || echo yes); $(first_line "$W/snap1.err")" \
		"$(verdict test "$code" = 1 -a "$before" = "$after" -a ! -e "$W/fx1")"
	"$BIN/rag-seed" --docs "$W/docs" >"$W/seed2.out" 2>"$W/seed2.err"
	code=$?
	row "… then rag-seed (without --recreate)" "exit $code; $(first_line "$W/seed2.err")" "$(verdict test "$code" = 1)"
	"$BIN/rag-seed" --docs "$W/docs" --recreate >"$W/seed3.out" 2>"$W/seed3.err"
	code=$?
	snap "$W/fx1" >"$W/snap1b.out" 2>&1
	code2=$?
	row "… then rag-seed --recreate, rag-snapshot" "exit $code ($(first_line "$W/seed3.out")), snapshot exit $code2" \
		"$(verdict test "$code" = 0 -a "$code2" = 0)"
fi

# 2. The index directory deleted: reading commands refuse and create nothing.
rm -rf "$D/index"
snap "$W/fx2" >/dev/null 2>"$W/snap2.err"
code=$?
row "index directory deleted, then rag-snapshot" \
	"exit $code, index re-created: $([ -e "$D/index" ] && echo YES || echo no); $(first_line "$W/snap2.err")" \
	"$(verdict test "$code" = 1 -a ! -e "$D/index" -a ! -e "$W/fx2")"
"$BIN/rag-seed" --docs "$W/docs" >"$W/seed4.out" 2>"$W/seed4.err"
code=$?
row "… then rag-seed" "exit $code; $(first_line "$W/seed4.err")" "$(verdict grep -q 're-indexed' "$W/seed4.err")"

# 3. rag-snapshot killed (SIGKILL) at random moments, 20 times: every
# fixture directory a reader sees is one run's complete set with its
# manifest, and no staging directory outlives the next run. Runs alternate
# --top-k 5 and 6, so every run changes every fixture and swaps.
bad=0
for i in $(seq 1 20); do
	# rag-snapshot itself runs in the background (exec), so that $! is its
	# pid. Killing the shell around it would leave it running, and the checks
	# below would race a live run.
	(exec "$BIN/rag-snapshot" --cases "$W/cases.json" --fixtures "$W/fx3" --skip-eval --top-k $((5 + i % 2))) >/dev/null 2>&1 &
	pid=$!
	sleep "0.$((RANDOM % 60))"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	if [ -d "$W/fx3" ]; then
		"$BIN/rag-eval" --cases "$W/cases.json" --fixtures "$W/fx3" -q --json-report "$W/r3.json" --markdown-report "$W/r3.md" >/dev/null 2>"$W/eval3.err"
		grep -q 'disagree' "$W/eval3.err" && bad=$((bad + 1))
		n=$(find "$W/fx3" -name '*.json' ! -name _snapshot.json | wc -l)
		[ "$n" = 3 ] && [ -f "$W/fx3/_snapshot.json" ] || bad=$((bad + 1))
		# One run's set: every fixture has the manifest's topK.
		k=$(grep -o '"topK": [0-9]*' "$W/fx3/_snapshot.json" | head -n1)
		[ "$(grep -l -- "$k" "$W"/fx3/c?.json | wc -l)" = 3 ] || bad=$((bad + 1))
	fi
done
snap "$W/fx3" >/dev/null 2>&1
left=$(find "$W" -maxdepth 1 -name '.fx3.*' | wc -l)
row "rag-snapshot killed (SIGKILL) at random moments, 20 runs, then one more run" \
	"mixed or incomplete fixture dirs seen: $bad; staging/old dirs left after the next run: $left" \
	"$(verdict test "$bad" = 0 -a "$left" = 0)"

# 4. A fixture that is no regular file, as a pull request can commit one: a
# symbolic link to /dev/zero, a named pipe, a 2 GB sparse file. rag-eval
# and rag-snapshot refuse it at once (exit 2), naming it, without reading
# it or waiting on it. No report is written and no staging directory is
# left. Each run gets 20 s before timeout stops it (exit 124).
maxrss() { # maxrss FILE: the peak RSS /usr/bin/time wrote, in MB
	if [ -s "$1" ]; then echo "$(($(tail -n1 "$1") / 1024)) MB"; else echo "not measured"; fi
}
timed() { # timed RSSFILE CMD...: CMD under timeout, its peak RSS in RSSFILE
	local rss=$1
	shift
	: >"$rss"
	if [ -x /usr/bin/time ]; then
		timeout 20 /usr/bin/time -f %M -o "$rss" "$@"
	else
		timeout 20 "$@"
	fi
}
F=$W/fx4
rm -rf "$F" && cp -r "$W/fx3" "$F"
for kind in link fifo sparse; do
	rm -f "$F/c2.json" "$W/r4.json"
	case $kind in
	link) ln -s /dev/zero "$F/c2.json" && what="a symbolic link to /dev/zero" ;;
	fifo) mkfifo "$F/c2.json" && what="a named pipe" ;;
	sparse) truncate -s 2G "$F/c2.json" && what="a 2 GB sparse file" ;;
	esac
	timed "$W/eval4.rss" "$BIN/rag-eval" --cases "$W/cases.json" --fixtures "$F" -q --json-report "$W/r4.json" --markdown-report "$W/r4.md" >/dev/null 2>"$W/eval4.err"
	ecode=$?
	timed "$W/snap4.rss" "$BIN/rag-snapshot" --cases "$W/cases.json" --fixtures "$F" --skip-eval >/dev/null 2>"$W/snap4.err"
	scode=$?
	left=$(find "$W" -maxdepth 1 -name '.fx4.*' | wc -l)
	row "fixture c2.json is $what, then rag-eval and rag-snapshot" \
		"rag-eval exit $ecode, peak RSS $(maxrss "$W/eval4.rss"), report written: $([ -e "$W/r4.json" ] && echo YES || echo no); rag-snapshot exit $scode, peak RSS $(maxrss "$W/snap4.rss"), staging dirs left: $left; $(first_line "$W/eval4.err")" \
		"$(verdict test "$ecode" = 2 -a "$scode" = 2 -a "$left" = 0 -a ! -e "$W/r4.json")"
done
rm -f "$F/c2.json"

# 4b. A seed killed (SIGKILL) between two documents of a re-seed that edits
# every document: each document is ready, only the first ones re-indexed.
# rag-snapshot refuses, naming rag-seed, and writes no fixture. A rerun of
# rag-seed converges, and rag-snapshot then records the new corpus.
half_seed() {
	local d=$W/halfseed docs=$W/halfdocs code code2 fp1 fp2 f named
	rm -rf "$docs" && cp -r "$W/docs" "$docs"
	RAG_DATA_DIR=$d "$BIN/rag-seed" --docs "$docs" >"$W/half1.out" 2>&1
	RAG_DATA_DIR=$d snap "$W/fxh1" >/dev/null 2>&1
	fp1=$(grep -o '"corpusSha256": "[0-9a-f]*"' "$W/fxh1/_snapshot.json")
	for f in "$docs"/*.md; do printf '\nEdited after the first seed.\n' >>"$f"; done
	touch "$W/half.stamp"
	(RAG_DATA_DIR=$d exec "$BIN/rag-seed" --docs "$docs") >"$W/half2.out" 2>&1 &
	local pid=$!
	# Killed once the hundredth document's knowledge copy is rewritten.
	while kill -0 "$pid" 2>/dev/null && ! [ "$d/knowledge/rag-eval/doc-0100.md" -nt "$W/half.stamp" ]; do sleep 0.01; done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	RAG_DATA_DIR=$d snap "$W/fxh2" >/dev/null 2>"$W/half-snap.err"
	code=$?
	RAG_DATA_DIR=$d "$BIN/rag-seed" --docs "$docs" >"$W/half3.out" 2>&1
	code2=$?
	RAG_DATA_DIR=$d snap "$W/fxh3" >/dev/null 2>&1
	fp2=$(grep -o '"corpusSha256": "[0-9a-f]*"' "$W/fxh3/_snapshot.json" 2>/dev/null)
	named=no
	grep -q 'a rag-seed of kbScope rag-eval' "$W/half-snap.err" && named=yes
	row "rag-seed of $DOCS edited docs killed (SIGKILL) after about 100 documents, then rag-snapshot, rag-seed, rag-snapshot" \
		"snapshot exit $code, no fixtures: $([ -e "$W/fxh2" ] && echo NO || echo yes); $(first_line "$W/half-snap.err"); rerun exit $code2, new corpus recorded: $([ -n "$fp2" ] && [ "$fp2" != "$fp1" ] && echo yes || echo NO)" \
		"$(verdict test "$code" = 1 -a ! -e "$W/fxh2" -a "$code2" = 0 -a -n "$fp2" -a "$fp2" != "$fp1" -a -n "$fp1" -a "$named" = yes)"
}
half_seed
unset RAG_STORE RAG_DATA_DIR

# ---------------------------------------------------------------- server

if [ ! -f .ragbaseline/services.env ]; then
	row "server stack scenarios" "no .ragbaseline/services.env (run make services)" skipped
	exit "$failed"
fi
. .ragbaseline/services.env
export RAG_STORE=server RAG_MILVUS_COLLECTION="t_$(date +%s)_faults00000"
DB=ragbaseline_faults
ADMIN_DSN=${RAG_MYSQL_DSN%%/*}/
export RAG_MYSQL_DSN="${ADMIN_DSN}${DB}"
mysql_exec() { # the DSN's user, password and host for the mariadb client
	local up=${ADMIN_DSN%%@*} hp=${ADMIN_DSN#*tcp(}
	hp=${hp%%)*}
	mariadb -u"${up%%:*}" -p"${up#*:}" -h"${hp%%:*}" -P"${hp##*:}" -e "$1"
}
mysql_exec "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
milvus_pid() { tr -dc '0-9' <.ragbaseline/services/milvus/milvus.pid; }
mariadb_pid() { tr -dc '0-9' <.ragbaseline/services/mysql/mariadb.pid; }
restart_services() { scripts/services.sh >"$W/services.log" 2>&1; }
converged() { # the seed reports nothing to do and the lookups check out
	"$BIN/rag-seed" --docs "$W/docs" >"$W/conv.out" 2>&1 && grep -q " 0 added, 0 updated, $DOCS unchanged" "$W/conv.out" &&
		snap "$W/fx-conv" >/dev/null 2>&1
}

# 4/5. Milvus, then MariaDB, killed (SIGKILL) in the middle of a seed.
for svc in milvus mariadb; do
	"$BIN/rag-seed" --docs "$W/docs" --recreate >"$W/kill-$svc.out" 2>"$W/kill-$svc.err" &
	pid=$!
	sleep 1.5
	kill -9 "$("${svc}_pid")"
	wait "$pid"
	code=$?
	restart_services
	"$BIN/rag-seed" --docs "$W/docs" >"$W/rerun-$svc.out" 2>&1
	rerun=$?
	ok=no
	converged && ok=yes
	row "$svc killed (SIGKILL) 1.5 s into a seed of $DOCS docs, restarted, rag-seed rerun" \
		"seed exit $code: $(first_line "$W/kill-$svc.err"); rerun exit $rerun; then unchanged and vectors = catalog rows: $ok" \
		"$(verdict test "$code" = 1 -a "$rerun" = 0 -a "$ok" = yes)"
done

# 6. Milvus stopped (SIGSTOP) before and during lookups: a timeout, said
# to be one, within --timeout.
kill -STOP "$(milvus_pid)"
snap "$W/fx6" --timeout 2s --retries 0 >/dev/null 2>"$W/snap6.err"
code=$?
kill -CONT "$(milvus_pid)"
row "Milvus frozen (SIGSTOP) before rag-snapshot --timeout 2s" "exit $code; $(first_line "$W/snap6.err")" \
	"$(verdict grep -q 'within 2s' "$W/snap6.err")"
{ # 400 lookups, so the freeze lands among them
	printf '{"version": 1, "kbScope": "rag-eval", "cases": ['
	for i in $(seq 1 400); do
		[ "$i" = 1 ] || printf ','
		printf '{"caseId": "q%03d", "scenario": "chat", "query": "连接池 max_connections %d", "expectedSources": ["doc-0000"]}' "$i" "$i"
	done
	printf ']}\n'
} >"$W/cases400.json"
"$BIN/rag-snapshot" --cases "$W/cases400.json" --fixtures "$W/fx6b" --skip-eval --timeout 2s --retries 0 --concurrency 1 >/dev/null 2>"$W/snap6b.err" &
pid=$!
sleep 0.5
kill -STOP "$(milvus_pid)"
wait "$pid"
code=$?
kill -CONT "$(milvus_pid)"
row "Milvus frozen (SIGSTOP) 0.5 s into rag-snapshot --timeout 2s" "exit $code, fixtures written: $([ -e "$W/fx6b" ] && echo YES || echo no); $(first_line "$W/snap6b.err")" \
	"$(verdict grep -q 'within 2s' "$W/snap6b.err")"

# 7. Two seeds of one kbScope at once: the second waits for the first.
check7() { grep -q 'waiting up to' "$W/c2.err" && test "$c1" = 0 -a "$c2" = 0 -a "$ok" = yes; }
"$BIN/rag-seed" --docs "$W/docs" --recreate >"$W/c1.out" 2>"$W/c1.err" &
p1=$!
sleep 0.3
"$BIN/rag-seed" --docs "$W/docs" >"$W/c2.out" 2>"$W/c2.err"
c2=$?
wait "$p1"
c1=$?
ok=no
converged && ok=yes
row "two rag-seed runs at once on one database and collection (the first with --recreate)" \
	"exits $c1 and $c2; second said: $(first_line "$W/c2.err"); converged: $ok" \
	"$(verdict check7)"

# 8. A mistyped collection: rag-snapshot refuses and creates nothing.
RAG_MILVUS_COLLECTION=${RAG_MILVUS_COLLECTION}_typo snap "$W/fx8" >/dev/null 2>"$W/snap8.err"
code=$?
RAG_MILVUS_COLLECTION=${RAG_MILVUS_COLLECTION}_typo snap "$W/fx8" >/dev/null 2>"$W/snap8b.err"
still=no
grep -q 'does not exist' "$W/snap8b.err" && still=yes
row "rag-snapshot with a mistyped RAG_MILVUS_COLLECTION, twice" \
	"exit $code; still missing on the second run: $still; $(first_line "$W/snap8.err")" \
	"$(verdict test "$code" = 1 -a "$still" = yes)"

mysql_exec "DROP DATABASE IF EXISTS $DB"
go run ./tools/sweeptest -drop-collection "$RAG_MILVUS_COLLECTION" >/dev/null 2>&1 || true
exit "$failed"
