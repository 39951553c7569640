# shellcheck shell=bash
# The process helpers of the service scripts, sourced by services.sh,
# ext-services.sh and their -stop scripts. The sourcing script defines log
# and die, HOST, TIMEOUT and WAIT. HOST is the address its services listen
# on. TIMEOUT is the seconds a service may take to start, WAIT the seconds
# it may take to stop.

# alive PID: the process exists and is not a zombie. Nothing reaps our
# daemons' zombies in some sandboxes, so kill -0 alone is not enough.
alive() {
	kill -0 "$1" 2>/dev/null || return 1
	! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# pid_of PIDFILE NAME: prints the pid in PIDFILE when it is a live process
# whose command line matches NAME, a grep basic regular expression. A
# recycled pid is therefore never taken for ours.
pid_of() {
	local pidfile=$1 name=$2 pid
	[ -s "$pidfile" ] || return 1
	pid="$(tr -dc '0-9' <"$pidfile")"
	[ -n "$pid" ] || return 1
	alive "$pid" || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$name" || return 1
	echo "$pid"
}

# pid_alive PIDFILE NAME: pid_of, without printing.
pid_alive() { pid_of "$@" >/dev/null; }

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# port_owner PORT: best-effort description of who listens on PORT.
port_owner() {
	if command -v ss >/dev/null 2>&1; then
		ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*users:((\(.*\)))/\1/p' | head -n1
	fi
}

# require_free_port SERVICE PORT ENVVAR
require_free_port() {
	if port_open "$2"; then
		die "$1: port $HOST:$2 is already in use by another process ($(port_owner "$2" || true)); stop it, or run with $3=<free port>"
	fi
}

# wait_for SERVICE LOGFILE PIDFILE CHECK...: poll CHECK until it succeeds,
# until the process in PIDFILE dies (when PIDFILE is given), or until
# TIMEOUT passes.
wait_for() {
	local name=$1 logfile=$2 pidfile=$3 pid=""
	shift 3
	[ -z "$pidfile" ] || pid="$(tr -dc '0-9' <"$pidfile" 2>/dev/null || true)"
	local deadline=$((SECONDS + TIMEOUT)) t0=$SECONDS
	until "$@" >/dev/null 2>&1; do
		if [ -n "$pid" ] && ! alive "$pid"; then
			tail -n 30 "$logfile" >&2 2>/dev/null || true
			die "$name exited during startup; see its log: $logfile"
		fi
		if [ "$SECONDS" -ge "$deadline" ]; then
			tail -n 30 "$logfile" >&2 2>/dev/null || true
			die "$name did not answer on $HOST within ${TIMEOUT}s; see its log: $logfile"
		fi
		sleep 0.2
	done
	log "$name ready after $((SECONDS - t0))s"
}

# stop_daemon SERVICE PIDFILE NAME: SIGTERM, wait up to WAIT seconds, then
# SIGKILL. The pid file goes.
stop_daemon() {
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
