#!/usr/bin/env bash
# Stops the external retrieval servers scripts/ext-services.sh started, by
# their pid files under .ragbaseline/ext-services/. It removes their lines
# from .ragbaseline/ext-services.env, and the file goes when none is left.
# Data is kept, and scripts/ext-services.sh starts them again.
#
# Usage: scripts/ext-services-stop.sh [--clean] [weaviate|opensearch|chroma]...
# Without a server name it stops all three. Safe to run when nothing is
# running. --clean also deletes the data of the servers named, and make
# ext-services-clean deletes all of it. The cached installs stay
# (docs/external-servers.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.ragbaseline"
SVC="$STATE/ext-services"
ENV_FILE="$STATE/ext-services.env"
# shellcheck disable=SC2034 # read by daemon.sh
WAIT="${RAG_EXT_STOP_TIMEOUT:-30}"

log() { printf 'ext-services-stop: %s\n' "$*"; }

# shellcheck source=scripts/daemon.sh
. "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

# stop SERVICE PIDFILE NAME: its env fragment goes first, then the process.
stop() {
	rm -f "$SVC/$1/$1.env"
	stop_daemon "$@"
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
	opensearch) stop opensearch "$SVC/opensearch/opensearch.pid" 'bin/opensearch\|org\.opensearch\.bootstrap\.OpenSearch' ;;
	chroma) stop chroma "$SVC/chroma/chroma.pid" chromadb_rust_bindings ;;
	*)
		printf 'ext-services-stop: error: unknown server %s (weaviate, opensearch or chroma)\n' "$s" >&2
		exit 1
		;;
	esac
done

if [ -n "$clean" ]; then
	for s in "${which[@]}"; do
		# OpenSearch may keep its files outside the clone, in its rundir.
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
