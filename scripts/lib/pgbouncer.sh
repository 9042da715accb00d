# Sourced by scripts/pg-test-server: a private PgBouncer in front of the private server, configured as docs/store.md
# ("Hundreds of tills: a pooler") tells a chain to, so that the store's tests and `till-sync fleet` run through it.
#   pgbouncer_setup NAME                         sets PGBOUNCER (installing Debian's pgbouncer package when missing)
#   pgbouncer_start DIR SOCKET PORT MAX_DB USER  starts one on a free loopback port in DIR (as USER's prefix AS, since
#                                                it refuses to run as root); sets PGBOUNCER_PORT and PGBOUNCER_PID

pgbouncer_setup() {
  local name=$1
  PGBOUNCER=$(command -v pgbouncer || true)
  [ -z "$PGBOUNCER" ] && [ -x /usr/sbin/pgbouncer ] && PGBOUNCER=/usr/sbin/pgbouncer
  if [ -z "$PGBOUNCER" ]; then
    echo "$name: no PgBouncer on this machine; installing Debian's pgbouncer package" >&2
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq pgbouncer >/dev/null
    PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
    [ -x "$PGBOUNCER" ] || { echo "$name: installed pgbouncer, but found no pgbouncer" >&2; exit 1; }
  fi
}

pgbouncer_start() {
  local dir=$1 socket=$2 port=$3 maxdb=$4 authuser=$5
  PGBOUNCER_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$dir"
  : >"$dir/userlist.txt"
  # Transaction pooling: a till's statements are single transactions (no session state, no LISTEN, no named prepared
  # statement), and each till logs in as its own role, so each till is a pool of its own (the store knows a till by
  # session_user): a connection of the server is never shared between tills. max_db_connections caps the server's
  # backends for the whole fleet; a till beyond it waits in the pooler's queue instead of being refused.
  cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$socket port=$port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
pidfile = $dir/pgbouncer.pid
logfile = $dir/pgbouncer.log
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
auth_user = $authuser
pool_mode = transaction
max_client_conn = 5000
default_pool_size = 1
max_db_connections = $maxdb
server_idle_timeout = 10
server_lifetime = 3600
log_connections = 0
log_disconnections = 0
INI
  [ ${#AS[@]} -gt 0 ] && chown -R postgres "$dir"
  # A client connection is a file descriptor: as many as the hard limit allows (runuser starts at a soft 1,024).
  "${AS[@]}" sh -c 'ulimit -n "$(ulimit -Hn)"; exec "$0" -d -q "$1"' "$PGBOUNCER" "$dir/pgbouncer.ini" || { cat "$dir/pgbouncer.log" >&2 || true; echo "pgbouncer did not start" >&2; exit 1; }
  local i
  for i in $(seq 50); do [ -s "$dir/pgbouncer.pid" ] && break; sleep 0.1; done
  PGBOUNCER_PID=$(cat "$dir/pgbouncer.pid")
}
