#!/usr/bin/env bash
# `npm run test:pg`: the test suite against a throwaway PostgreSQL cluster (scripts/pg-cluster.sh), which is stopped
# and removed on exit. Extra arguments go to `bun test` (a file, -t PATTERN, --reporter=junit …). Exits with the
# tests' status; a cluster that cannot start is a failure (exit 1, with the reason on stderr).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if ! url="$(bash "$here/pg-cluster.sh" start)"; then
  echo "test-pg: could not start a PostgreSQL cluster (reason above)" >&2
  exit 1
fi
trap 'bash "$here/pg-cluster.sh" stop "$url"' EXIT
trap 'exit 130' INT TERM
echo "test-pg: ASSAY_TEST_DATABASE_URL=$url" >&2

ASSAY_TEST_DATABASE_URL="$url" bun test --timeout 30000 "$@"
