#!/usr/bin/env bash
# Stops the external retrieval servers scripts/ext-services.sh started (by
# their pid files under .ragbaseline/ext-services/) and removes their lines
# from .ragbaseline/ext-services.env (the file goes when none is left).
# Data is kept; scripts/ext-services.sh starts them again.
#
# Usage: scripts/ext-services-stop.sh [--clean] [weaviate|opensearch|chroma]...
# (no argument: all three). Safe to run when nothing is running. --clean
# also deletes the data of the servers named (make ext-services-clean: all;
# the cached installs stay, docs/external-servers.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.ragbaseline"
SVC="$STATE/ext-services"
ENV_FILE="$STATE/ext-services.env"
WAIT="${RAG_EXT_STOP_TIMEOUT:-30}"

log() { printf 'ext-services-stop: %s\n' "$*"; }

alive() {
	kill -0 "$1" 2>/dev/null || return 1
	! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# pid_of PIDFILE NAME: the pid when it is alive and its command line
# mentions NAME (a recycled pid is never signalled).
pid_of() {
	local pidfile=$1 name=$2 pid
	[ -s "$pidfile" ] || return 1
	pid="$(tr -dc '0-9' <"$pidfile")"
	[ -n "$pid" ] || return 1
	alive "$pid" || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name" || return 1
	echo "$pid"
}

# stop SERVICE PIDFILE NAME: SIGTERM, wait up to WAIT seconds, then SIGKILL.
stop() {
	local service=$1 pidfile=$2 name=$3 pid deadline
	rm -f "$SVC/$service/$service.env"
	if ! pid="$(pid_of "$pidfile" "$name")"; then
		log "$service not running"
		rm -f "$pidfile"
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null || true
	deadline=$((SECONDS + WAIT))
	while alive "$pid"; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			log "$service (pid $pid) did not stop within ${WAIT}s; killing it"
			kill -KILL "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	rm -f "$pidfile"
	log "$service stopped (pid $pid)"
}

clean=""
if [ "${1:-}" = --clean ]; then
	clean=1
	shift
fi
which=("$@")
[ "${#which[@]}" -gt 0 ] || which=(weaviate opensearch chroma)
for s in "${which[@]}"; do
	case "$s" in
	weaviate) stop weaviate "$SVC/weaviate/weaviate.pid" weaviate-server ;;
	opensearch) stop opensearch "$SVC/opensearch/opensearch.pid" org.opensearch.bootstrap.OpenSearch ;;
	chroma) stop chroma "$SVC/chroma/chroma.pid" chromadb_rust_bindings ;;
	*)
		printf 'ext-services-stop: error: unknown server %s (weaviate, opensearch or chroma)\n' "$s" >&2
		exit 1
		;;
	esac
done

if [ -n "$clean" ]; then
	for s in "${which[@]}"; do
		# OpenSearch may keep its files outside the clone (rundir).
		if [ -s "$SVC/$s/rundir" ]; then
			run="$(cat "$SVC/$s/rundir")"
			case "$run" in
			*/ragbaseline-opensearch-*) rm -rf "$run" ;;
			esac
		fi
		rm -rf "${SVC:?}/$s"
		log "$s data deleted"
	done
fi

# The env file keeps the servers still running.
left=()
for f in "$SVC"/weaviate/weaviate.env "$SVC"/opensearch/opensearch.env "$SVC"/chroma/chroma.env; do
	[ -f "$f" ] && left+=("$f")
done
if [ "${#left[@]}" -eq 0 ]; then
	rm -f "$ENV_FILE"
else
	tmp="$(mktemp "$STATE/.ext-services.env.XXXXXX")"
	{
		echo "# written by scripts/ext-services.sh; load with: . .ragbaseline/ext-services.env"
		cat "${left[@]}"
		echo "export RAG_EXT_SERVICES=1"
	} >"$tmp"
	chmod 644 "$tmp"
	mv -f "$tmp" "$ENV_FILE"
fi
