# Shared by scripts/spark-cluster and scripts/spark-connect (sourced, not run): the virtualenv's pyspark as
# SPARK_HOME, daemons started in their own process group with a pid file and a log, waits, and stops.
# Callers set STATE (the state dir) before calling launch/wait_for/running/stop_all.

PYTHON="${PIPEC_PYTHON:-$root/.venv/bin/python}"
CACHE="${PIPEC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pipec}"
TIMEOUT="${PIPEC_SPARK_TIMEOUT:-90}"
STOP_TIMEOUT="${PIPEC_SPARK_STOP_TIMEOUT:-20}"

log() { echo "$(basename "$0"): $*" >&2; }
die() { log "$*"; exit 1; }

[ -x "$PYTHON" ] || die "no python at $PYTHON (run scripts/setup-env, or set PIPEC_PYTHON)"
command -v java >/dev/null 2>&1 || die "java not found: Spark needs Java 17+ (scripts/setup-env installs it)"
SPARK_HOME="$("$PYTHON" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
export SPARK_HOME
export PYSPARK_PYTHON="${PYSPARK_PYTHON:-$PYTHON}"   # the executors' and the Connect server's Python workers
export SPARK_LOCAL_IP=127.0.0.1                     # everything on loopback

state_dir() {  # explicit-dir default-name
  local dir="${1:-$CACHE/$2}"
  case "$dir" in /*) ;; *) dir="$PWD/$dir" ;; esac
  echo "$dir"
}

pyspark_version() { "$PYTHON" -c 'import pyspark; print(pyspark.__version__)'; }

free_port() { "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

launch() {  # name command...: run in its own session (process group), output to STATE/name.log
  local name="$1"; shift
  setsid "$@" >"$STATE/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}

running() {  # name
  [ -f "$STATE/$1.pid" ] && kill -0 "$(cat "$STATE/$1.pid")" 2>/dev/null
}

wait_for() {  # name regex: until the log says it, or the process died, or TIMEOUT (then the log is kept)
  local name="$1" pattern="$2" waited=0 why=""
  until grep -Eq "$pattern" "$STATE/$name.log" 2>/dev/null; do
    if ! running "$name"; then why="exited before it was ready"; fi
    if [ "$waited" -ge "$TIMEOUT" ]; then why="not ready after ${TIMEOUT}s"; fi
    if [ -n "$why" ]; then
      grep -m 5 -E "^[A-Za-z.]*(Exception|Error)|Caused by|ERROR" "$STATE/$name.log" >&2 || tail -20 "$STATE/$name.log" >&2 || true
      stop_daemons
      die "$name $why (the errors above; whole log: $STATE/$name.log)"
    fi
    sleep 1; waited=$((waited + 1))
  done
}

stop_one() {  # name: SIGTERM its process group, SIGKILL after STOP_TIMEOUT
  local pid
  [ -f "$STATE/$1.pid" ] || return 0
  pid="$(cat "$STATE/$1.pid")"
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq "$STOP_TIMEOUT"); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$STATE/$1.pid"
}

stop_daemons() {  # every daemon with a pid file in STATE
  local pidfile
  for pidfile in "$STATE"/*.pid; do
    [ -e "$pidfile" ] || continue
    stop_one "$(basename "$pidfile" .pid)"
  done
}

stop_all() {  # the daemons, then STATE itself
  [ -d "$STATE" ] || return 0
  stop_daemons
  rm -rf "$STATE"
}
