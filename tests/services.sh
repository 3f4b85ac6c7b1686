#!/usr/bin/env bash
# Finds (or starts, or installs and starts) the Postgres and Redis the test suite talks to,
# and writes their URLs to .test-env for `make test`. Order of preference:
#   1. TEST_DATABASE_URL / TEST_REDIS_URL from the environment;
#   2. servers already listening on 127.0.0.1:5432 / :6379 (trust auth, user postgres);
#   3. the machine's own cluster / redis-server, started;
#   4. throwaway servers in /tmp (installed from Debian's packages first when missing, as root).
# The browser tests (tests/web) drive Debian's Chromium and render PDFs with poppler-utils:
# both installed here when missing, as root; and axe-core from npm (below).
set -euo pipefail
out=${1:-.test-env}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_for() { for _ in $(seq 1 60); do listening "$1" && return 0; sleep 0.5; done; return 1; }
have_root() { [ "$(id -u)" = 0 ]; }
apt_install() {
  have_root || { echo "cannot install $* without root; set TEST_DATABASE_URL / TEST_REDIS_URL" >&2; exit 1; }
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null
}

db=${TEST_DATABASE_URL:-}
if [ -z "$db" ]; then
  if ! listening 5432 && command -v pg_ctlcluster >/dev/null && ls /etc/postgresql >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start >/dev/null 2>&1 || true
    wait_for 5432 || true
  fi
  if listening 5432; then
    db="postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
  else
    initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -1 || true)
    if [ -z "$initdb" ]; then apt_install postgresql; initdb=$(ls /usr/lib/postgresql/*/bin/initdb | tail -1); fi
    bindir=$(dirname "$initdb"); data=/tmp/arbiter-test-pg
    run=(); have_root && run=(runuser -u postgres --)
    if [ ! -s "$data/PG_VERSION" ]; then
      mkdir -p "$data"; have_root && chown postgres "$data"
      "${run[@]}" "$bindir/initdb" -D "$data" -A trust -U postgres >/dev/null
    fi
    listening 55432 || "${run[@]}" "$bindir/pg_ctl" -D "$data" -o "-p 55432 -k /tmp -c listen_addresses=127.0.0.1" -l "$data/log" start >/dev/null
    wait_for 55432
    db="postgresql+asyncpg://postgres@127.0.0.1:55432/postgres"
  fi
fi

redis=${TEST_REDIS_URL:-}
if [ -z "$redis" ]; then
  if listening 6379; then
    redis="redis://127.0.0.1:6379/15"
  else
    command -v redis-server >/dev/null || apt_install redis-server
    listening 56379 || redis-server --daemonize yes --bind 127.0.0.1 --port 56379 --save "" --appendonly no >/dev/null
    wait_for 56379
    redis="redis://127.0.0.1:56379/15"
  fi
fi

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  if have_root; then apt_install chromium; else echo "no chromium: tests/web will fail (install Debian's chromium)" >&2; fi
fi

# the slips' QR test renders the printed PDF with poppler's pdftoppm
if ! command -v pdftoppm >/dev/null 2>&1; then
  if have_root; then apt_install poppler-utils; else echo "no pdftoppm: tests/web/test_qr.py will fail (install Debian's poppler-utils)" >&2; fi
fi

# the accessibility test (tests/web/test_accessibility.py) injects axe-core from npm into each page:
# a pinned version in .cache/axe (ignored by git), installed once; Node and npm from Debian when missing
axe_version=4.14.1
axe_dir="$(cd "$(dirname "$0")/.." && pwd)/.cache/axe"
axe="$axe_dir/node_modules/axe-core/axe.min.js"
if [ ! -s "$axe" ] || ! grep -q "\"version\": \"$axe_version\"" "$axe_dir/node_modules/axe-core/package.json" 2>/dev/null; then
  if ! command -v npm >/dev/null 2>&1; then
    if have_root; then apt_install nodejs npm; else echo "no npm: tests/web/test_accessibility.py will fail (install Debian's nodejs and npm)" >&2; fi
  fi
  if command -v npm >/dev/null 2>&1; then
    mkdir -p "$axe_dir"
    npm install --no-save --no-audit --no-fund --silent --prefix "$axe_dir" "axe-core@$axe_version" >/dev/null
  fi
fi

# the server key of what `make test`, `make fuzz` and `make bench` start (docs/operations.md "Keys")
printf 'export TEST_DATABASE_URL=%q\nexport TEST_REDIS_URL=%q\nexport ARBITER_SECRET_KEY=%q\n' "$db" "$redis" \
  arbiter-test-suite-key >"$out"
[ -s "$axe" ] && printf 'export ARBITER_TEST_AXE=%q\n' "$axe" >>"$out"
echo "test services: $db, $redis"
