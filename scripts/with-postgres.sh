#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster on loopback; TEST_DATABASE_URL points at it.
# Uses Debian's postgresql binaries (installed by .ci/run); removes the cluster afterwards.
set -euo pipefail

PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "${PGBIN}" ] || [ ! -x "${PGBIN}/initdb" ]; then
  echo "with-postgres: PostgreSQL server binaries not found (apt-get install -y postgresql)" >&2
  exit 3
fi

# Below the ephemeral range (32768–60999 on Linux), where an outgoing connection may hold any port.
PORT=${PGPORT_TEST:-25432}
DIR=$(mktemp -d /tmp/stratus-pg.XXXXXX)
RUN_AS=()
if [ "$(id -u)" = "0" ]; then
  # The server refuses to run as root: run it as the postgres user Debian's package creates.
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "${DIR}"
  RUN_AS=(runuser -u postgres --)
fi

cleanup() {
  "${RUN_AS[@]}" "${PGBIN}/pg_ctl" -D "${DIR}/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "${DIR}"
}
trap cleanup EXIT

"${RUN_AS[@]}" "${PGBIN}/initdb" -D "${DIR}/data" -A trust -U stratus --no-sync >/dev/null
# The server speaks German (its own translation, chosen by LANGUAGE under a UTF-8 C locale): nothing
# may depend on the English of its messages, only on their SQLSTATE codes and fields.
"${RUN_AS[@]}" env LANGUAGE=de "${PGBIN}/pg_ctl" -D "${DIR}/data" -w -l "${DIR}/server.log" \
  -o "-k ${DIR} -p ${PORT} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 -c lc_messages=C.UTF-8" start >/dev/null

export TEST_DATABASE_URL="postgres://stratus@127.0.0.1:${PORT}/postgres"
echo "with-postgres: PostgreSQL $("${PGBIN}/postgres" --version | awk '{print $3}') on 127.0.0.1:${PORT}"
"$@"
