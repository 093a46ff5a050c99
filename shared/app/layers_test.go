package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers keeps the house layered as docs/architecture.md
// draws it: each package (or binary) must not link the packages listed
// against it, directly or through anything it imports. go list -deps sees
// only non-test imports, which is what ends up in a binary.
func TestLayers(t *testing.T) {
	const mod = "github.com/giftcampaign/service/"
	for _, tt := range []struct {
		name, pkg string
		forbidden []string
		// required: the parts a function's routes need, which its main
		// must name (without them email or jobs would silently stop).
		required []string
	}{
		{"the domain imports no other package of the service", "shared/gifting",
			[]string{"shared/dynamo", "shared/service", "shared/httpapi", "shared/jobs", "shared/app"}, nil},
		{"the access slice knows no adapter and no other layer", "shared/access",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"a slice knows no adapter and no other layer", "shared/wallet",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the webhook slice knows no adapter and no other layer: its ports reach storage, KMS, the network and wire",
			"shared/webhook", []string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire",
				"shared/jobs", "shared/webhooks", "shared/sealed/kmskey"}, nil},
		{"the catalog slice knows no adapter and no other layer", "shared/catalog",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the contact slice knows no adapter and no other layer", "shared/contact",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the import slice knows no adapter and no other layer: its ports reach storage, the files and the queue", "shared/contactimport",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the rules of deleting what campaigns refer to know no slice and no adapter", "shared/refcheck",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs",
				"shared/campaign", "shared/contact", "shared/catalog", "shared/recipient"}, nil},
		{"the event slice knows no adapter and no other layer", "shared/event",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the campaign slice knows no adapter and no other layer", "shared/campaign",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the scheduler sees its store through an interface", "shared/scheduler",
			[]string{"shared/dynamo", "shared/service", "shared/httpapi"}, nil},
		{"the recipient slice knows no adapter and no other layer", "shared/recipient",
			[]string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs", "shared/mail/ses"}, nil},
		{"the fulfilment slice knows no adapter, no other layer and no slice but the wallet: the recipient slice imports it",
			"shared/fulfilment", []string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs",
				"shared/recipient", "shared/campaign", "shared/catalog", "shared/contact"}, nil},
		{"the audience slice knows no adapter and no other layer: its ports reach storage, the queue and the contact lists",
			"shared/audience", []string{"shared/dynamo", "shared/httpapi", "shared/service", "shared/app", "shared/wire", "shared/jobs"}, nil},
		{"the use cases know no adapter", "shared/service",
			[]string{"shared/dynamo", "shared/httpapi", "shared/app"}, nil},
		{"HTTP knows no storage", "shared/httpapi",
			[]string{"shared/dynamo", "shared/app"}, nil},
		{"storage knows no HTTP and no use case, and renders no JSON of the API's", "shared/dynamo",
			[]string{"shared/httpapi", "shared/service", "shared/wire"}, nil},
		{"the worker links no HTTP adapter", "functions/worker",
			[]string{"shared/httpapi", "shared/app/web"}, []string{"shared/mail/ses", "shared/jobs/sqsqueue", "shared/sealed/kmskey", "shared/app/s3files"}},
		// Only the functions that seal or open secrets (webhook secrets,
		// gift codes, the suppression key) link the KMS client, as only
		// their roles may use the key.
		{"webhooks seals secrets, sends no email, enqueues nothing", "functions/webhooks",
			[]string{"shared/mail/ses", "shared/jobs/sqsqueue"}, []string{"shared/sealed/kmskey"}},
		{"the sealer knows no AWS service and no use case", "shared/sealed",
			[]string{"shared/service", "shared/dynamo", "shared/sealed/kmskey"}, nil},
		// Each function links only the optional parts its routes use
		// (bootstrap ≤ 10 MB): the SES mailer, the SQS queue, the docs.
		{"catalog sends no email, enqueues nothing, parses no YAML", "functions/catalog",
			// It seals digital gifts' codes on upload: the KMS client.
			[]string{"shared/mail/ses", "shared/jobs/sqsqueue", "shared/apidocs/openapijson"}, []string{"shared/apidocs", "shared/sealed/kmskey"}},
		// It starts CSV imports: the queue of the worker that reads them, and
		// the S3 client that presigns their uploads; its suppression list
		// keys addresses with the suppression key: the KMS client.
		{"contacts sends no email and serves no docs", "functions/contacts",
			[]string{"shared/mail/ses", "shared/apidocs"}, []string{"shared/jobs/sqsqueue", "shared/app/s3files", "shared/sealed/kmskey"}},
		{"events sends no email, enqueues nothing, serves no docs", "functions/events",
			[]string{"shared/mail/ses", "shared/jobs/sqsqueue", "shared/apidocs", "shared/sealed/kmskey"}, nil},
		{"campaigns sends no email and serves no docs", "functions/campaigns",
			[]string{"shared/mail/ses", "shared/apidocs", "shared/sealed/kmskey"}, []string{"shared/jobs/sqsqueue"}},
		{"audiences sends no email and serves no docs", "functions/audiences",
			[]string{"shared/mail/ses", "shared/apidocs", "shared/sealed/kmskey"}, []string{"shared/jobs/sqsqueue"}},
		// add-recipient looks the address up on the suppression list: the
		// KMS client that opens the suppression key.
		{"recipients enqueues nothing and serves no docs", "functions/recipients",
			[]string{"shared/jobs/sqsqueue", "shared/apidocs"}, []string{"shared/mail/ses", "shared/sealed/kmskey"}},
		// The landing page reveals a digital gift's code: the KMS client.
		{"the pages link no API, mailer or queue", "functions/pages",
			[]string{"shared/httpapi", "shared/mail/ses", "shared/jobs/sqsqueue", "shared/apidocs"}, []string{"shared/sealed/kmskey"}},
		// The canary's hooks only invoke the functions and report to
		// CodeDeploy: none of the service is in them.
		{"the pre-traffic hook links no storage, use case, HTTP adapter or configuration", "functions/pretraffichook",
			[]string{"shared/dynamo", "shared/service", "shared/httpapi", "shared/app", "shared/pages", "shared/jobs", "shared/mail", "shared/sealed"},
			[]string{"shared/deployhook", "shared/awsenv"}},
		{"the post-traffic hook links no storage, use case, HTTP adapter or configuration", "functions/posttraffichook",
			[]string{"shared/dynamo", "shared/service", "shared/httpapi", "shared/app", "shared/pages", "shared/jobs", "shared/mail", "shared/sealed"},
			[]string{"shared/deployhook", "shared/awsenv"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", mod+tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			deps := strings.Fields(string(out))
			for _, f := range tt.forbidden {
				if slices.Contains(deps, mod+f) {
					t.Errorf("%s depends on %s", tt.pkg, f)
				}
			}
			for _, r := range tt.required {
				if !slices.Contains(deps, mod+r) {
					t.Errorf("%s does not link %s", tt.pkg, r)
				}
			}
		})
	}
}
