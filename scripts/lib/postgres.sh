# Sourced by scripts/pg-test-server and scripts/demo-store: finds the distribution's PostgreSQL server (installing
# Debian's postgresql package when the machine has no initdb) and how to run it.
#   postgres_setup NAME   sets BIN (the folder of initdb and pg_ctl) and AS (the command prefix that runs the server:
#                         as root, the postgres user, since PostgreSQL refuses to run as root); NAME prefixes messages.

postgres_find_bin() {
  if command -v initdb >/dev/null 2>&1; then dirname "$(readlink -f "$(command -v initdb)")"; return; fi
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && { echo "$d"; return; }; done
  return 1
}

postgres_setup() {
  local name=$1
  if ! BIN=$(postgres_find_bin); then
    echo "$name: no PostgreSQL server on this machine; installing Debian's postgresql package" >&2
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >/dev/null
    BIN=$(postgres_find_bin) || { echo "$name: installed postgresql, but found no initdb" >&2; exit 1; }
  fi
  AS=()
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    AS=(runuser -u postgres --)
  fi
}
