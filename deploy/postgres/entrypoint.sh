#!/bin/sh
# First start: make the cluster, its user (password from POSTGRES_PASSWORD) and database.
set -eu
: "${POSTGRES_USER:?set POSTGRES_USER}" "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 \
        --auth-local=trust --auth-host=scram-sha-256
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
    createdb -U "$POSTGRES_USER" "$POSTGRES_DB" 2>/dev/null || true
    pg_ctl -D "$PGDATA" -m fast -w stop
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
