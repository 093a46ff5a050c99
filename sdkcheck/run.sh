#!/usr/bin/env bash
# The SDK check (make sdk-check): Redocly's recommended rules over the document, then a Python client
# (openapi-python-client) and a TypeScript client (@hey-api/openapi-ts, compiled with tsc --strict)
# generated from it, each running the integrator's flow of sdkcheck/*/flow.* against the local server.
# The Go client's flow is a Go test (client/flow_test.go). Tools come from `make sdk-tools`; generated code
# goes under .tools/, never into the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=$PWD/.tools
DOC=$PWD/shared/httpapi/openapi.yaml
NODE_BIN=$TOOLS/sdk-node/node_modules/.bin
LOCAL=$TOOLS/bin/local

echo "sdk-check: redocly lint (recommended rules)"
"$NODE_BIN/redocly" lint --extends recommended --format stylish "$DOC"

echo "sdk-check: generating the Python client"
py_out=$TOOLS/sdk-gen/python
rm -rf "$py_out" && mkdir -p "$py_out"
"$TOOLS/sdk-venv/bin/openapi-python-client" generate --path "$DOC" --output-path "$py_out/gcs_client" \
	--meta none --config sdkcheck/python/config.yaml

echo "sdk-check: generating and compiling the TypeScript client"
# Under the generators' npm prefix, so that the generated code finds zod.
ts_out=$TOOLS/sdk-node/check
rm -rf "$ts_out" && mkdir -p "$ts_out"
cp sdkcheck/ts/flow.ts sdkcheck/ts/tsconfig.json "$ts_out/"
echo '{"type": "module"}' >"$ts_out/package.json"
OPENAPI_DOC=$DOC TS_OUT=$ts_out/gen "$NODE_BIN/openapi-ts" -f sdkcheck/ts/openapi-ts.config.mjs
"$NODE_BIN/tsc" -p "$ts_out/tsconfig.json"

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
DYNAMODB_PORT=$(free_port)
while [ "$DYNAMODB_PORT" = "$PORT" ]; do DYNAMODB_PORT=$(free_port); done
go build -o "$LOCAL" ./infra/local
log=$TOOLS/sdk-gen/server.log
# As in .ci/schemathesis.sh: a process group of its own, so that the cleanup reaches all of it.
PORT=$PORT DYNAMODB_PORT=$DYNAMODB_PORT TABLE_NAME=sdk-check LOG_LEVEL=WARN \
	setsid "$LOCAL" run >"$log" 2>&1 </dev/null &
server=$!
stop_server() {
	if kill -0 "$server" 2>/dev/null; then
		kill -TERM "$server" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$server" 2>/dev/null || break
			sleep 0.2
		done
	fi
	kill -KILL -- "-$server" 2>/dev/null || true
	wait "$server" 2>/dev/null || true
}
trap stop_server EXIT
trap 'exit 130' INT TERM

base=http://127.0.0.1:$PORT
key=""
for _ in $(seq 1 600); do
	if ! kill -0 "$server" 2>/dev/null; then
		echo "sdk-check: the local server exited before serving; its log:" >&2
		cat "$log" >&2
		exit 1
	fi
	key=$(grep -oE 'gcs_[A-Za-z0-9_-]{43}' "$log" | tail -n 1 || true)
	if [ -n "$key" ] && curl -fsS -o /dev/null "$base/api/campaigns/openapi.json" 2>/dev/null; then
		break
	fi
	sleep 0.2
done
if [ -z "$key" ]; then
	echo "sdk-check: no demo API key in the local server's output within 120 s; its log:" >&2
	cat "$log" >&2
	exit 1
fi

PYTHONPATH=$py_out "$TOOLS/sdk-venv/bin/python" sdkcheck/python/flow.py "$base" "$key"
node "$ts_out/flow.js" "$base" "$key"
