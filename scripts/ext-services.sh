#!/usr/bin/env bash
# Installs and starts the external retrieval servers the mapped-pipeline
# tests run against, on loopback, without Docker or systemd:
#   Weaviate 1.35.2   (Go module, built here)     http://127.0.0.1:8090
#   OpenSearch 2.19.1 (Maven Central) + k-NN      http://127.0.0.1:9201
#   Chroma 1.5.9      (PyPI, in a venv)           http://127.0.0.1:8091
# It writes their URLs to .ragbaseline/ext-services.env as `export …=…`
# lines: WEAVIATE_URL, OPENSEARCH_URL, CHROMA_URL.
#
# Usage: scripts/ext-services.sh [weaviate|opensearch|chroma]...
# Without an argument it starts all three. scripts/ext-services-stop.sh
# stops them. docs/external-servers.md says why each choice was made.
#
# Installs are cached outside the clone, so every clone on the machine
# reuses them, CI's fresh ones too. The cache is
# ${RAG_EXT_CACHE:-~/.cache/ragbaseline/ext}/:
#   weaviate-1.35.2/bin/weaviate-server   built from the module source that
#                                         the Go checksum database vouches for
#   opensearch-2.19.1/                    integ-test zip + k-NN plugin, both
#                                         sha512-checked against pinned sums
#   chroma-1.5.9/venv/                    chromadb, sha256-pinned wheel
#   downloads/                            the two OpenSearch zips
# Each install is finished by writing a .complete marker last, so an
# interrupted install is redone. So is a finished one found damaged: a
# Weaviate binary that does not run, OpenSearch files whose sha256 differs
# from the install's, or a venv that cannot import chromadb.
#
# Data, logs and pids live in the clone, under .ragbaseline/ext-services/,
# which git ignores: weaviate/, opensearch/ and chroma/, each with
# <name>.pid and <name>.log. Safe to run twice: a server that is running
# and answering is left alone.
#
# Weaviate 1.35.2 listens for gRPC and for its cluster data API on every
# interface, and has no setting for either address. The build therefore
# patches those two listen addresses to 127.0.0.1 in a copy of the module
# source. Each patch is checked to apply exactly once, and nothing else
# changes.
#
# OpenSearch refuses to run as root. When this script runs as root, the
# server runs as RAG_EXT_OPENSEARCH_USER (nobody), from a hard-linked copy
# of the install, because the cache may be under /root, which other users
# cannot enter. Its files are in .ragbaseline/ext-services/opensearch/. When
# the clone is closed to that user they are in
# /tmp/ragbaseline-opensearch-<checksum of the clone's path>/ instead.
#
# Environment overrides, with their defaults:
#   RAG_EXT_CACHE (~/.cache/ragbaseline/ext)  RAG_EXT_TIMEOUT (seconds per server, 180)
#   RAG_EXT_WEAVIATE_PORT (8090)  RAG_EXT_WEAVIATE_GRPC_PORT (50061)
#   RAG_EXT_WEAVIATE_GOSSIP_PORT (7956)  RAG_EXT_WEAVIATE_DATA_PORT (7957)
#   RAG_EXT_WEAVIATE_RAFT_PORT (8310)  RAG_EXT_WEAVIATE_RAFT_RPC_PORT (8311)
#   RAG_EXT_OPENSEARCH_PORT (9201)  RAG_EXT_OPENSEARCH_TRANSPORT_PORT (9301)
#   RAG_EXT_OPENSEARCH_HEAP (512m)  RAG_EXT_OPENSEARCH_USER (nobody, root only)
#   RAG_EXT_CHROMA_PORT (8091)  RAG_EXT_PYTHON (python3)  GO (go)  JAVA_HOME
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.ragbaseline"
SVC="$STATE/ext-services"
ENV_FILE="$STATE/ext-services.env"
CACHE="${RAG_EXT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragbaseline/ext}"
# shellcheck disable=SC2034 # read by daemon.sh
TIMEOUT="${RAG_EXT_TIMEOUT:-180}"
HOST=127.0.0.1
GO="${GO:-go}"
PYTHON="${RAG_EXT_PYTHON:-python3}"

WEAVIATE_VERSION=1.35.2
WV_PORT="${RAG_EXT_WEAVIATE_PORT:-8090}"
WV_GRPC_PORT="${RAG_EXT_WEAVIATE_GRPC_PORT:-50061}"
WV_GOSSIP_PORT="${RAG_EXT_WEAVIATE_GOSSIP_PORT:-7956}"
WV_DATA_PORT="${RAG_EXT_WEAVIATE_DATA_PORT:-7957}"
WV_RAFT_PORT="${RAG_EXT_WEAVIATE_RAFT_PORT:-8310}"
WV_RAFT_RPC_PORT="${RAG_EXT_WEAVIATE_RAFT_RPC_PORT:-8311}"

OPENSEARCH_VERSION=2.19.1
KNN_VERSION=2.19.1.0
OS_PORT="${RAG_EXT_OPENSEARCH_PORT:-9201}"
OS_TRANSPORT_PORT="${RAG_EXT_OPENSEARCH_TRANSPORT_PORT:-9301}"
OS_HEAP="${RAG_EXT_OPENSEARCH_HEAP:-512m}"
OS_RUN_USER="${RAG_EXT_OPENSEARCH_USER:-nobody}"
MAVEN=https://repo1.maven.org/maven2/org/opensearch
OS_ZIP_URL="$MAVEN/distribution/integ-test-zip/opensearch/$OPENSEARCH_VERSION/opensearch-$OPENSEARCH_VERSION.zip"
OS_ZIP_SHA512=0bed69daad3c80e1302a0dba083f04f5accbb94ba8451052822ec065d24432fe096e329d6971758a8a021025b0302ee5b27eb5d89506853d8be736305f407651
KNN_ZIP_URL="$MAVEN/plugin/opensearch-knn/$KNN_VERSION/opensearch-knn-$KNN_VERSION.zip"
KNN_ZIP_SHA512=b773727c4c41d08f3e3af4726cde420b90749c55a5cc82ca5fd42a5b58f3edb002f2210b8653a597b5121d4034b428857df7bd82627b44946da7d2ad67111b28

CHROMA_VERSION=1.5.9
# The sha256 of chromadb-1.5.9-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl.
# Add the sums of other platforms' wheels here.
CHROMA_SHA256S=(cc09b3df76e5a5cb386aed2715a2eea152e3949f9e1ba93c7119505377749929)
CH_PORT="${RAG_EXT_CHROMA_PORT:-8091}"

log() { printf 'ext-services: [%3ds] %s\n' "$SECONDS" "$*"; }
die() { printf 'ext-services: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------- helpers

# shellcheck source=scripts/daemon.sh
. "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

http_ok() { curl -sf --noproxy '*' -m 5 -o /dev/null "$1"; }

# fetch URL SHA512 DEST: download into the cache unless DEST already has
# the pinned sum. A mismatch fails.
fetch() {
	local url=$1 sum=$2 dest=$3
	if [ -f "$dest" ] && printf '%s  %s\n' "$sum" "$dest" | sha512sum -c --status; then
		return
	fi
	mkdir -p "$(dirname "$dest")"
	log "downloading $url"
	curl -fsSL --retry 3 -o "$dest.part" "$url" || die "download failed: $url"
	printf '%s  %s\n' "$sum" "$dest.part" | sha512sum -c --status ||
		{ rm -f "$dest.part"; die "sha512 mismatch for $url (pinned $sum)"; }
	mv -f "$dest.part" "$dest"
}

# same_url NAME DIR URL: fails when the server of this clone that is alive
# was started for another URL, because a port override changed since.
# Taking whatever answers at URL for it, or waiting for it there, would be
# wrong.
same_url() {
	local was
	was="$(cat "$2/$1.url" 2>/dev/null || true)"
	[ -z "$was" ] || [ "$was" = "$3" ] ||
		die "$1 is running (pid $(cat "$2/$1.pid")) for $was, not $3: stop it first (scripts/ext-services-stop.sh $1)"
}

# env_fragment NAME LINES...: the settings of one running server, gathered
# into ENV_FILE by write_env.
env_fragment() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$SVC/$name/$name.env.tmp"
	mv -f "$SVC/$name/$name.env.tmp" "$SVC/$name/$name.env"
}

# write_env: ENV_FILE from the fragments of the servers started so far.
# scripts/ext-services-stop.sh rewrites it the same way.
write_env() {
	local tmp f
	tmp="$(mktemp "$STATE/.ext-services.env.XXXXXX")"
	{
		echo "# written by scripts/ext-services.sh; load with: . .ragbaseline/ext-services.env"
		for f in "$SVC"/weaviate/weaviate.env "$SVC"/opensearch/opensearch.env "$SVC"/chroma/chroma.env; do
			[ -f "$f" ] && cat "$f"
		done
		echo "export RAG_EXT_SERVICES=1"
	} >"$tmp"
	chmod 644 "$tmp"
	mv -f "$tmp" "$ENV_FILE"
}

# ---------------------------------------------------------------- Weaviate

WV_CACHE="$CACHE/weaviate-$WEAVIATE_VERSION"
WV_BIN="$WV_CACHE/bin/weaviate-server"
WV_DIR="$SVC/weaviate"
WV_PID="$WV_DIR/weaviate.pid"
WV_LOG="$WV_DIR/weaviate.log"
WV_URL="http://$HOST:$WV_PORT"
wv_ping() { http_ok "$WV_URL/v1/.well-known/ready"; }

# patch_once FILE FROM TO: replace the single line matching FROM, and fail
# unless exactly one line changed. A new release that moved the code must
# not build unpatched.
patch_once() {
	local file=$1 from=$2 to=$3 n
	n="$(grep -cF -- "$from" "$file" || true)"
	[ "$n" = 1 ] || die "weaviate: expected one line '$from' in $file, found $n; the loopback patch does not fit this version"
	local tmp="$file.patched"
	awk -v from="$from" -v to="$to" '{ i = index($0, from); if (i) $0 = substr($0, 1, i - 1) to substr($0, i + length(from)); print }' "$file" >"$tmp"
	mv -f "$tmp" "$file"
	grep -qF -- "$to" "$file" || die "weaviate: patching $file failed"
}

install_weaviate() {
	if [ -x "$WV_BIN" ] && [ -f "$WV_CACHE/.complete" ]; then
		# A damaged binary crashes without a word in the log: a truncated copy,
		# say, or one cut short by a full disk. It is built again instead.
		if { "$WV_BIN" --help >/dev/null; } 2>/dev/null; then
			return
		fi
		log "weaviate: the cached $WV_BIN does not run; building it again"
	fi
	command -v "$GO" >/dev/null 2>&1 || die "weaviate: $GO not found (a Go toolchain builds Weaviate)"
	local t0=$SECONDS dir src
	log "weaviate: fetching the module source github.com/weaviate/weaviate@v$WEAVIATE_VERSION (checked against the Go checksum database)"
	# Run from /, outside any module, since the download concerns no go.mod of ours.
	dir="$(cd / && GOWORK=off GO111MODULE=on "$GO" mod download -json "github.com/weaviate/weaviate@v$WEAVIATE_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
	{ [ -n "$dir" ] && [ -f "$dir/go.mod" ]; } || die "weaviate: go mod download github.com/weaviate/weaviate@v$WEAVIATE_VERSION failed"
	src="$WV_CACHE/src"
	rm -rf "$src" "$WV_CACHE/.complete"
	mkdir -p "$WV_CACHE/bin"
	cp -R "$dir" "$src"
	chmod -R u+w "$src"
	# gRPC and the cluster data API listen on ":port", every interface: make it 127.0.0.1.
	patch_once "$src/adapters/handlers/grpc/server.go" 'fmt.Sprintf(":%d",' 'fmt.Sprintf("127.0.0.1:%d",'
	patch_once "$src/adapters/handlers/rest/clusterapi/serve.go" 'Addr:      fmt.Sprintf(":%d", port),' 'Addr:      fmt.Sprintf("127.0.0.1:%d", port),'
	log "weaviate: building weaviate-server (several minutes on 2 cores the first time; the Go build cache keeps the rest)"
	(cd "$src" && "$GO" build -trimpath -o "$WV_BIN.tmp" ./cmd/weaviate-server) >"$WV_CACHE/build.log" 2>&1 ||
		{ tail -n 30 "$WV_CACHE/build.log" >&2; die "weaviate: go build failed; see $WV_CACHE/build.log"; }
	mv -f "$WV_BIN.tmp" "$WV_BIN"
	rm -rf "$src"
	printf 'weaviate %s, gRPC and cluster API patched to listen on 127.0.0.1\n' "$WEAVIATE_VERSION" >"$WV_CACHE/.complete"
	log "weaviate: installed in $((SECONDS - t0))s: $WV_BIN"
}

start_weaviate() {
	mkdir -p "$WV_DIR/data"
	! pid_alive "$WV_PID" weaviate-server || same_url weaviate "$WV_DIR" "$WV_URL"
	if pid_alive "$WV_PID" weaviate-server && wv_ping; then
		log "weaviate already running on $WV_URL (pid $(cat "$WV_PID"))"
	else
		if ! pid_alive "$WV_PID" weaviate-server; then
			rm -f "$WV_PID"
			install_weaviate
			require_free_port weaviate "$WV_PORT" RAG_EXT_WEAVIATE_PORT
			require_free_port "weaviate gRPC" "$WV_GRPC_PORT" RAG_EXT_WEAVIATE_GRPC_PORT
			require_free_port "weaviate gossip" "$WV_GOSSIP_PORT" RAG_EXT_WEAVIATE_GOSSIP_PORT
			require_free_port "weaviate data" "$WV_DATA_PORT" RAG_EXT_WEAVIATE_DATA_PORT
			require_free_port "weaviate raft" "$WV_RAFT_PORT" RAG_EXT_WEAVIATE_RAFT_PORT
			require_free_port "weaviate raft rpc" "$WV_RAFT_RPC_PORT" RAG_EXT_WEAVIATE_RAFT_RPC_PORT
			log "starting weaviate $WEAVIATE_VERSION on $WV_URL"
			# USE_INVERTED_SEARCHABLE=false: new classes use the exact WAND
			# BM25 search, not BlockMax WAND. In 1.35.2 BlockMax WAND prunes
			# terms still in the memtable, fixed upstream by
			# weaviate/weaviate#11780. Measured here, a multi-term BM25 query
			# right after a load missed every chunk matching its rarer term.
			printf '=== %s start weaviate %s\n' "$(date -u +%FT%TZ)" "$WEAVIATE_VERSION" >>"$WV_LOG"
			(
				cd "$WV_DIR"
				env AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true \
					PERSISTENCE_DATA_PATH="$WV_DIR/data" \
					DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= \
					DISABLE_TELEMETRY=true API_BASED_MODULES_DISABLED=true \
					CLUSTER_HOSTNAME=ragbaseline-1 \
					CLUSTER_BIND_ADDR="$HOST" CLUSTER_ADVERTISE_ADDR="$HOST" \
					CLUSTER_GOSSIP_BIND_PORT="$WV_GOSSIP_PORT" CLUSTER_DATA_BIND_PORT="$WV_DATA_PORT" \
					RAFT_PORT="$WV_RAFT_PORT" RAFT_INTERNAL_RPC_PORT="$WV_RAFT_RPC_PORT" \
					RAFT_BOOTSTRAP_EXPECT=1 RAFT_JOIN=ragbaseline-1 \
					GRPC_PORT="$WV_GRPC_PORT" \
					GO_PROFILING_DISABLE=true PROMETHEUS_MONITORING_ENABLED=false \
					USE_INVERTED_SEARCHABLE=false \
					LOG_LEVEL="${RAG_EXT_WEAVIATE_LOG_LEVEL:-warning}" \
					setsid nohup "$WV_BIN" --host "$HOST" --port "$WV_PORT" --scheme http \
					</dev/null >>"$WV_LOG" 2>&1 &
				echo $! >"$WV_PID"
			)
			echo "$WV_URL" >"$WV_DIR/weaviate.url"
		fi
		wait_for weaviate "$WV_LOG" "$WV_PID" wv_ping
	fi
	env_fragment weaviate \
		"# Weaviate $WEAVIATE_VERSION (REST and GraphQL; gRPC on $HOST:$WV_GRPC_PORT)" \
		"export WEAVIATE_URL=$WV_URL" \
		"export WEAVIATE_GRPC_ADDR=$HOST:$WV_GRPC_PORT"
}

# ---------------------------------------------------------------- OpenSearch

OS_CACHE="$CACHE/opensearch-$OPENSEARCH_VERSION"
OS_DIR="$SVC/opensearch"
OS_PID="$OS_DIR/opensearch.pid"
OS_LOG="$OS_DIR/opensearch.log"
OS_URL="http://$HOST:$OS_PORT"
# The server's process, as its command line reads. bin/opensearch is a
# shell script that runs the JVM options parser before it execs the
# server's JVM. For its first seconds the pid in the pid file is therefore
# the script's.
OS_PROC='bin/opensearch\|org\.opensearch\.bootstrap\.OpenSearch'
os_ping() { curl -sf --noproxy '*' -m 5 "$OS_URL/_cluster/health" | grep -q '"status":"\(green\|yellow\)"'; }

java_home() {
	if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
		echo "$JAVA_HOME"
		return
	fi
	local java
	java="$(command -v java 2>/dev/null)" || return 1
	dirname "$(dirname "$(readlink -f "$java")")"
}

# os_manifest DIR: the sha256 sums of the install's files, for os_installed.
os_manifest() {
	(cd "$1" && find . -type f ! -name .complete ! -name '.sha256*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}

# os_installed: the cached install is complete, and its files are the ones
# it was installed with (.sha256). An install made before the sums were
# kept gets them now.
os_installed() {
	[ -f "$OS_CACHE/.complete" ] || return 1
	if [ ! -f "$OS_CACHE/.sha256" ]; then
		os_manifest "$OS_CACHE" >"$OS_CACHE/.sha256.tmp" && mv -f "$OS_CACHE/.sha256.tmp" "$OS_CACHE/.sha256"
		return
	fi
	(cd "$OS_CACHE" && sha256sum -c --quiet --status .sha256)
}

install_opensearch() {
	if os_installed; then
		return
	fi
	[ ! -f "$OS_CACHE/.complete" ] || log "opensearch: the cached install in $OS_CACHE has damaged files; installing it again"
	command -v unzip >/dev/null 2>&1 || die "opensearch: unzip not found (apt-get install unzip)"
	local t0=$SECONDS dl="$CACHE/downloads"
	fetch "$OS_ZIP_URL" "$OS_ZIP_SHA512" "$dl/opensearch-$OPENSEARCH_VERSION.zip"
	fetch "$KNN_ZIP_URL" "$KNN_ZIP_SHA512" "$dl/opensearch-knn-$KNN_VERSION.zip"
	local tmp="$OS_CACHE.tmp"
	rm -rf "$tmp" "$OS_CACHE"
	mkdir -p "$tmp"
	unzip -q "$dl/opensearch-$OPENSEARCH_VERSION.zip" -d "$tmp"
	mv "$tmp/opensearch-$OPENSEARCH_VERSION"/* "$tmp/"
	rmdir "$tmp/opensearch-$OPENSEARCH_VERSION"
	# The k-NN plugin, unpacked where bin/opensearch-plugin would put it.
	# Its descriptor names lang-painless in extended.plugins, for painless
	# scoring scripts. lang-painless is not published as a plugin zip, and
	# the integ-test distribution has no module but transport-netty4. So
	# the dependency is cleared: k-NN queries and mappings do not need it.
	mkdir -p "$tmp/plugins/opensearch-knn"
	unzip -q "$dl/opensearch-knn-$KNN_VERSION.zip" -d "$tmp/plugins/opensearch-knn"
	local desc="$tmp/plugins/opensearch-knn/plugin-descriptor.properties"
	grep -q '^extended.plugins=' "$desc" || die "opensearch: $desc has no extended.plugins line"
	sed -i 's/^extended.plugins=.*/extended.plugins=/' "$desc"
	chmod -R a+rX "$tmp"
	os_manifest "$tmp" >"$tmp/.sha256"
	mv "$tmp" "$OS_CACHE"
	# The install time makes every install's marker differ. A root run's
	# hard-linked copy of an earlier install is then replaced.
	printf 'opensearch %s (integ-test zip) + opensearch-knn %s (extended.plugins cleared), installed %s\n' \
		"$OPENSEARCH_VERSION" "$KNN_VERSION" "$(date -u +%FT%TZ)" >"$OS_CACHE/.complete"
	log "opensearch: installed in $((SECONDS - t0))s: $OS_CACHE"
}

start_opensearch() {
	mkdir -p "$OS_DIR"
	! pid_alive "$OS_PID" "$OS_PROC" || same_url opensearch "$OS_DIR" "$OS_URL"
	if pid_alive "$OS_PID" "$OS_PROC" && os_ping; then
		log "opensearch already running on $OS_URL (pid $(cat "$OS_PID"))"
	else
		if ! pid_alive "$OS_PID" "$OS_PROC"; then
			rm -f "$OS_PID"
			install_opensearch
			require_free_port opensearch "$OS_PORT" RAG_EXT_OPENSEARCH_PORT
			require_free_port "opensearch transport" "$OS_TRANSPORT_PORT" RAG_EXT_OPENSEARCH_TRANSPORT_PORT
			local jh
			jh="$(java_home)" || die "opensearch: no java found (OpenSearch $OPENSEARCH_VERSION needs Java 11 or later; set JAVA_HOME)"
			# run: the directory of the server's home, config, data, logs and
			# tmp. The pid and the log stay in OS_DIR.
			local home="$OS_CACHE" run="$OS_DIR" runner=()
			if [ "$(id -u)" -eq 0 ]; then
				command -v setpriv >/dev/null 2>&1 || die "opensearch: setpriv (util-linux) is needed to run OpenSearch as $OS_RUN_USER"
				id -u "$OS_RUN_USER" >/dev/null 2>&1 || die "opensearch: user $OS_RUN_USER does not exist; set RAG_EXT_OPENSEARCH_USER"
				runner=(setpriv --reuid="$(id -u "$OS_RUN_USER")" --regid="$(id -g "$OS_RUN_USER")" --clear-groups --)
				chmod a+rx "$OS_DIR"
				if ! "${runner[@]}" test -x "$OS_DIR"; then
					# The clone is closed to the run user, under /root say. The run
					# directory is then one of this clone's own under /tmp.
					run="${TMPDIR:-/tmp}/ragbaseline-opensearch-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
					mkdir -p "$run"
					chmod 755 "$run"
					log "opensearch: $OS_DIR is closed to $OS_RUN_USER; its files go to $run"
				fi
				echo "$run" >"$OS_DIR/rundir"
				# A hard-linked copy of the install the run user can reach. The
				# cache may be under a home only root can enter.
				home="$run/home"
				if [ ! -f "$home/.complete" ] || ! cmp -s "$home/.complete" "$OS_CACHE/.complete"; then
					rm -rf "$home"
					cp -al "$OS_CACHE" "$home" 2>/dev/null || cp -a "$OS_CACHE" "$home"
				fi
			fi
			local conf="$run/config"
			mkdir -p "$run/data" "$run/logs" "$run/tmp" "$conf/jvm.options.d"
			cp "$home/config/log4j2.properties" "$conf/log4j2.properties"
			# The distribution's jvm.options without its heap, GC log and heap
			# dump lines. Those name relative paths under the home, which the run
			# user may not write.
			grep -v '^[[:space:]]*#' "$home/config/jvm.options" | grep . |
				grep -v -e '-Xm[sx]' -e '^8:' -e '^8-10:' -e 'gc\.log' -e 'HeapDump' -e 'ErrorFile' >"$conf/jvm.options"
			printf -- '-Xms%s\n-Xmx%s\n-XX:ErrorFile=%s/logs/hs_err_pid%%p.log\n' "$OS_HEAP" "$OS_HEAP" "$run" >"$conf/jvm.options.d/ragbaseline.options"
			cat >"$conf/opensearch.yml" <<EOF
# written by scripts/ext-services.sh
cluster.name: ragbaseline
node.name: ragbaseline-1
path.data: $run/data
path.logs: $run/logs
network.host: $HOST
http.port: $OS_PORT
transport.port: $OS_TRANSPORT_PORT
discovery.type: single-node
# A test server: a fuller disk must not turn the indexes read-only.
cluster.routing.allocation.disk.threshold_enabled: false
EOF
			if [ "${#runner[@]}" -gt 0 ]; then
				chown -R "$OS_RUN_USER" "$run/data" "$run/logs" "$run/tmp" "$conf"
				"${runner[@]}" test -r "$home/lib" -a -w "$run/data" ||
					die "opensearch: user $OS_RUN_USER cannot read $home or write $run/data; set RAG_EXT_OPENSEARCH_USER or TMPDIR"
			fi
			log "starting opensearch $OPENSEARCH_VERSION (k-NN $KNN_VERSION, heap $OS_HEAP) on $OS_URL"
			printf '=== %s start opensearch %s\n' "$(date -u +%FT%TZ)" "$OPENSEARCH_VERSION" >>"$OS_LOG"
			(
				cd "$OS_DIR"
				OPENSEARCH_JAVA_HOME="$jh" OPENSEARCH_PATH_CONF="$conf" OPENSEARCH_TMPDIR="$run/tmp" \
					setsid nohup "${runner[@]}" "$home/bin/opensearch" </dev/null >>"$OS_LOG" 2>&1 &
				echo $! >"$OS_PID"
			)
			echo "$OS_URL" >"$OS_DIR/opensearch.url"
		fi
		wait_for opensearch "$OS_LOG" "$OS_PID" os_ping
	fi
	env_fragment opensearch \
		"# OpenSearch $OPENSEARCH_VERSION with the k-NN plugin $KNN_VERSION (lucene engine), security off" \
		"export OPENSEARCH_URL=$OS_URL"
}

# ---------------------------------------------------------------- Chroma

CH_CACHE="$CACHE/chroma-$CHROMA_VERSION"
CH_VENV="$CH_CACHE/venv"
CH_DIR="$SVC/chroma"
CH_PID="$CH_DIR/chroma.pid"
CH_LOG="$CH_DIR/chroma.log"
CH_URL="http://$HOST:$CH_PORT"
ch_ping() { http_ok "$CH_URL/api/v2/heartbeat"; }

install_chroma() {
	if [ -f "$CH_CACHE/.complete" ] && [ -x "$CH_VENV/bin/python" ]; then
		if "$CH_VENV/bin/python" -c 'import chromadb_rust_bindings' >/dev/null 2>&1; then
			return
		fi
		log "chroma: the cached virtualenv $CH_VENV cannot import chromadb_rust_bindings; installing it again"
	fi
	local t0=$SECONDS
	rm -rf "$CH_CACHE"
	mkdir -p "$CH_CACHE"
	log "chroma: installing chromadb==$CHROMA_VERSION from PyPI into $CH_VENV"
	"$PYTHON" -m venv "$CH_VENV" >"$CH_CACHE/venv.log" 2>&1 || { cat "$CH_CACHE/venv.log" >&2; die "chroma: cannot create virtualenv $CH_VENV"; }
	local req="$CH_CACHE/requirements.txt" h hashes=""
	for h in "${CHROMA_SHA256S[@]}"; do hashes="$hashes --hash=sha256:$h"; done
	echo "chromadb==$CHROMA_VERSION$hashes" >"$req"
	# --no-deps: the server is the Rust extension inside the wheel. The
	# Python client's dependencies are never needed, nor is the default
	# embedding model it would download on first use.
	"$CH_VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --require-hashes -r "$req" >"$CH_CACHE/pip.log" 2>&1 ||
		{ tail -n 30 "$CH_CACHE/pip.log" >&2; die "chroma: pip install chromadb==$CHROMA_VERSION failed (a wheel whose sha256 is not pinned in this script also fails); see $CH_CACHE/pip.log"; }
	"$CH_VENV/bin/python" -c 'import chromadb_rust_bindings' || die "chroma: chromadb $CHROMA_VERSION has no chromadb_rust_bindings module"
	echo "chromadb $CHROMA_VERSION" >"$CH_CACHE/.complete"
	log "chroma: installed in $((SECONDS - t0))s: $CH_VENV"
}

start_chroma() {
	mkdir -p "$CH_DIR/data"
	! pid_alive "$CH_PID" chromadb_rust_bindings || same_url chroma "$CH_DIR" "$CH_URL"
	if pid_alive "$CH_PID" chromadb_rust_bindings && ch_ping; then
		log "chroma already running on $CH_URL (pid $(cat "$CH_PID"))"
	else
		if ! pid_alive "$CH_PID" chromadb_rust_bindings; then
			rm -f "$CH_PID"
			install_chroma
			require_free_port chroma "$CH_PORT" RAG_EXT_CHROMA_PORT
			log "starting chroma $CHROMA_VERSION on $CH_URL"
			printf '=== %s start chroma %s\n' "$(date -u +%FT%TZ)" "$CHROMA_VERSION" >>"$CH_LOG"
			(
				cd "$CH_DIR"
				# The `chroma` console script imports the Python client and its
				# dependencies, which are not installed. The server is the Rust CLI
				# behind it, called directly.
				NO_COLOR=1 setsid nohup "$CH_VENV/bin/python" -c \
					'import sys, chromadb_rust_bindings as c; c.cli(["chroma"] + sys.argv[1:])' \
					run --host "$HOST" --port "$CH_PORT" --path "$CH_DIR/data" \
					</dev/null >>"$CH_LOG" 2>&1 &
				echo $! >"$CH_PID"
			)
			echo "$CH_URL" >"$CH_DIR/chroma.url"
		fi
		wait_for chroma "$CH_LOG" "$CH_PID" ch_ping
	fi
	env_fragment chroma \
		"# Chroma $CHROMA_VERSION (v2 API)" \
		"export CHROMA_URL=$CH_URL"
}

# ---------------------------------------------------------------- main

main() {
	local which=("$@") s
	[ "${#which[@]}" -gt 0 ] || which=(weaviate opensearch chroma)
	for s in "${which[@]}"; do
		case "$s" in
		weaviate | opensearch | chroma) ;;
		*) die "unknown server '$s' (weaviate, opensearch or chroma)" ;;
		esac
	done
	command -v curl >/dev/null 2>&1 || die "curl not found"
	mkdir -p "$SVC"
	[ -e "$STATE/.gitignore" ] || printf '*\n' >"$STATE/.gitignore"
	# start_<server> installs it, or checks its install, only when it is not
	# running already.
	for s in "${which[@]}"; do
		"start_$s"
	done
	write_env
	log "ready in ${SECONDS}s: ${which[*]}; settings in $ENV_FILE (load with: . $ENV_FILE)"
}

main "$@"
