#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests: a temp folder, a free loopback port, no durability, gone on stop.
#
#   scripts/pg-cluster.sh start         prints one line on stdout, the admin URL postgres://assay@127.0.0.1:PORT/postgres,
#                                       and leaves the server running (all other output goes to stderr)
#   scripts/pg-cluster.sh start --owner PID
#                                       the same, and the cluster stops and is removed once process PID has ended
#                                       (for a test process that may be killed before it can stop what it started)
#   scripts/pg-cluster.sh stop URL|DIR  stops that cluster and removes its folder
#   scripts/pg-cluster.sh bindir        prints the folder of the PostgreSQL binaries it would use (exit 1: none)
#
# The cluster lives in "${TMPDIR:-/tmp}/assay-pg.XXXXXX": data/ (PGDATA), log (the server's log), initdb.log, the
# server's Unix socket, and a file `port`. `stop URL` finds the folder by that file (the URL's port), so run it with
# the same TMPDIR as `start`; `stop DIR` takes the folder itself. Settings: trust authentication, superuser `assay`, listening on
# 127.0.0.1 only, and fsync, synchronous_commit and full_page_writes off (a crash loses nothing worth keeping).
# Binaries: the newest /usr/lib/postgresql/*/bin (Debian's `postgresql`), else initdb and pg_ctl on PATH. PostgreSQL
# refuses to run as root, so as root the folder is given to the `postgres` user and the server runs as that user.
set -euo pipefail

say() { echo "pg-cluster: $*" >&2; }

# The newest version with a server (a newer client-only package has a bin/ without initdb), else PATH.
bindir() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    dirname "$(command -v pg_ctl)"
  else
    return 1
  fi
}

# Runs a command as the user that owns the cluster: the caller, or `postgres` when the caller is root (from /, as
# the current folder may be closed to that user; paths given to it are absolute).
as_owner() {
  if [ "$(id -u)" -ne 0 ]; then
    "$@"
  elif command -v runuser >/dev/null; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && su postgres -s /bin/sh -c "$(printf '%q ' "$@")")
  fi
}

# A folder `stop` may delete: one this script made.
check_cluster_dir() {
  case "$(basename "$1")" in
    assay-pg.*) [ -f "$1/port" ] || [ -d "$1/data" ] ;;
    *) false ;;
  esac
}

start() {
  # bin and dir are global: the EXIT trap reads them.
  local port attempt
  bin="$(bindir)" || { say "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or on PATH"; exit 1; }
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    say "running as root and there is no 'postgres' user to run the server as"
    exit 1
  fi
  dir="$(cd "$(mktemp -d "${TMPDIR:-/tmp}/assay-pg.XXXXXX")" && pwd)"
  # Nothing is left behind when start fails.
  trap 'as_owner "$bin/pg_ctl" -D "$dir/data" stop -m immediate >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$dir"
    if ! as_owner test -w "$dir"; then
      say "the postgres user cannot write to $dir; set TMPDIR to a folder it can reach"
      exit 1
    fi
  fi

  if ! as_owner "$bin/initdb" -D "$dir/data" -A trust -U assay -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1; then
    cat "$dir/initdb.log" >&2
    say "initdb failed"
    exit 1
  fi
  cat >>"$dir/data/postgresql.conf" <<EOF

# scripts/pg-cluster.sh: a throwaway cluster for tests
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 300
EOF

  # A random port below Linux's ephemeral range; when it is taken (a listener answers, or the server cannot bind it),
  # try another.
  for attempt in $(seq 1 20); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 12000))
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then continue; fi
    if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -o "-p $port" -w -t 60 start >&2; then
      echo "$port" >"$dir/port"
      trap - EXIT
      say "started in $dir"
      if [ -n "$owner" ]; then
        # A watchdog, detached from our stdout (the caller reads it to its end): stops the cluster after its owner.
        nohup bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; exec bash "$2" stop "$3"' _ "$owner" "$0" "$dir" \
          >/dev/null 2>&1 </dev/null &
      fi
      echo "postgres://assay@127.0.0.1:$port/postgres"
      return 0
    fi
    say "attempt $attempt on port $port failed; the server's log:"
    tail -n 5 "$dir/log" >&2 || true
    : >"$dir/log"
  done
  say "could not start PostgreSQL"
  exit 1
}

stop() {
  local target="${1:?usage: pg-cluster.sh stop URL|DIR}" dir="" port d bin
  if [[ "$target" =~ ^postgres(ql)?://[^/]*:([0-9]+)(/|$) ]]; then
    port="${BASH_REMATCH[2]}"
    for d in "${TMPDIR:-/tmp}"/assay-pg.*; do
      if [ -f "$d/port" ] && [ "$(cat "$d/port")" = "$port" ]; then dir="$d"; fi
    done
    [ -n "$dir" ] || { say "no cluster on port $port in ${TMPDIR:-/tmp}/assay-pg.*"; exit 1; }
  else
    dir="$(cd "$target" 2>/dev/null && pwd)" || { say "no folder $target"; exit 1; }
  fi
  check_cluster_dir "$dir" || { say "$dir is not a folder made by pg-cluster.sh start"; exit 1; }
  if [ -f "$dir/data/postmaster.pid" ]; then
    bin="$(bindir)" || { say "no pg_ctl to stop the server in $dir"; exit 1; }
    # Immediate: the data is thrown away, so there is nothing to checkpoint.
    as_owner "$bin/pg_ctl" -D "$dir/data" stop -m immediate -w >&2 || say "pg_ctl stop failed (already stopped?)"
  fi
  rm -rf "$dir"
  say "stopped and removed $dir"
}

owner=""
case "${1:-}" in
  start)
    if [ "${2:-}" = "--owner" ]; then owner="${3:?usage: pg-cluster.sh start --owner PID}"; fi
    start
    ;;
  stop) stop "${2:-}" ;;
  bindir) bindir ;;
  *)
    echo "usage: $0 start | stop URL|DIR | bindir" >&2
    exit 2
    ;;
esac
