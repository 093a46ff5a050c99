# Sourced by the scripts that test the running service (.ci/schemathesis.sh, sdkcheck/run.sh):
#   start_local_server NAME TABLE LOG
# builds the local runner, starts it (DynamoDB Local, the SES emulator and the API) on free ports in a
# process group of its own, stops all of it when the calling script exits, waits until it serves, and
# sets $base (the server's URL) and $key (the demo organization's API key). NAME prefixes its messages.
# The caller has `set -euo pipefail` and runs from the repository root.

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start_local_server() {
	local name=$1 table=$2 log=$3 local_bin=$PWD/.tools/bin/local port dynamodb_port
	port=$(free_port)
	dynamodb_port=$(free_port)
	while [ "$dynamodb_port" = "$port" ]; do dynamodb_port=$(free_port); done

	# Built rather than `go run`, so that SIGTERM reaches the runner itself (see the Makefile).
	go build -o "$local_bin" ./infra/local
	mkdir -p "$(dirname "$log")"
	# setsid gives the server and what it starts a process group of their own, so the cleanup can reach
	# anything the runner leaves behind, and nothing else.
	PORT=$port DYNAMODB_PORT=$dynamodb_port TABLE_NAME=$table LOG_LEVEL=WARN \
		setsid "$local_bin" run >"$log" 2>&1 </dev/null &
	server=$!
	trap stop_local_server EXIT
	trap 'exit 130' INT TERM

	base=http://127.0.0.1:$port
	key=""
	for _ in $(seq 1 600); do
		if ! kill -0 "$server" 2>/dev/null; then
			echo "$name: the local server exited before serving; its log:" >&2
			cat "$log" >&2
			exit 1
		fi
		key=$(grep -oE 'gcs_[A-Za-z0-9_-]{43}' "$log" | tail -n 1 || true)
		if [ -n "$key" ] && curl -fsS -o /dev/null "$base/api/campaigns/openapi.json" 2>/dev/null; then
			return 0
		fi
		sleep 0.2
	done
	echo "$name: no demo API key in the local server's output within 120 s; its log:" >&2
	cat "$log" >&2
	exit 1
}

stop_local_server() {
	if kill -0 "$server" 2>/dev/null; then
		kill -TERM "$server" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$server" 2>/dev/null || break
			sleep 0.2
		done
	fi
	# The group's id is the runner's pid; whatever of it is still alive is ended.
	kill -KILL -- "-$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
}
