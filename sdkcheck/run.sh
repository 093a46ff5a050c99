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

source .ci/local-server.sh
start_local_server sdk-check sdk-check "$TOOLS/sdk-gen/server.log"

PYTHONPATH=$py_out "$TOOLS/sdk-venv/bin/python" sdkcheck/python/flow.py "$base" "$key"
node "$ts_out/flow.js" "$base" "$key"
