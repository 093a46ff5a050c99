package app

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
)

func TestNewDynamoDBRejectsBadEndpoint(t *testing.T) {
	for _, endpoint := range []string{"127.0.0.1:8000", "ftp://127.0.0.1", "http://"} {
		if _, err := NewDynamoDB(t.Context(), endpoint); err == nil {
			t.Errorf("NewDynamoDB(%q): got nil error", endpoint)
		}
	}
}

func TestLambdaAWS(t *testing.T) {
	t.Run("from the Lambda environment", func(t *testing.T) {
		t.Setenv("AWS_REGION", "eu-west-1")
		t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
		t.Setenv("AWS_SESSION_TOKEN", "token")
		cfg, err := LambdaAWS()
		if err != nil {
			t.Fatal(err)
		}
		creds, err := cfg.Credentials.Retrieve(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Region != "eu-west-1" || creds.AccessKeyID != "AKIDEXAMPLE" || creds.SessionToken != "token" {
			t.Errorf("got region %q, key %q, token %q", cfg.Region, creds.AccessKeyID, creds.SessionToken)
		}
	})
	t.Run("outside Lambda", func(t *testing.T) {
		t.Setenv("AWS_REGION", "")
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		if _, err := LambdaAWS(); err == nil {
			t.Error("LambdaAWS without the Lambda environment: got nil error")
		}
	})
}

// queueOf is a queue that only says which constructor made it.
type queueOf string

func (queueOf) Enqueue(context.Context, jobs.Job) error { return nil }

// TestCoreJobQueue checks which job queue a Core gets: only a function
// that names a job runner runs jobs in process (when no queue URL is set,
// as the local runner and sam local do), with that runner; one that names
// none links no job code.
func TestCoreJobQueue(t *testing.T) {
	sqs := WithQueue(func(Config) (jobs.Queue, error) { return queueOf("sqs"), nil })
	ran := make(chan string, 1)
	local := WithLocalJobs(func(_ *service.Service, _ context.Context, j jobs.Job) (*jobs.Job, error) {
		ran <- j.Kind
		return nil, nil
	})
	tests := []struct {
		name     string
		queueURL string
		opts     []Option
		want     string // "none", "in process" or "sqs"
	}{
		{"no option, no queue URL", "", nil, "none"},
		{"no option, a queue URL", "https://sqs.test/1/jobs", nil, "none"},
		{"local jobs, no queue URL", "", []Option{local}, "in process"},
		{"local jobs, a queue URL", "https://sqs.test/1/jobs", []Option{local}, "none"},
		{"queue, no queue URL", "", []Option{sqs}, "none"},
		{"queue and local jobs, no queue URL", "", []Option{sqs, local}, "in process"},
		{"queue and local jobs, a queue URL", "https://sqs.test/1/jobs", []Option{sqs, local}, "sqs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(t.Context(), Config{TableName: "t", Endpoint: "http://127.0.0.1:1", JobsQueueURL: tt.queueURL}, tt.opts...)
			if err != nil {
				t.Fatal(err)
			}
			got := "none"
			switch q := c.Queue.(type) {
			case *jobs.Local:
				got = "in process"
				if err := q.Enqueue(t.Context(), jobs.Job{Kind: "campaign.launch", OrgID: "o", Ref: "r"}); err != nil {
					t.Fatal(err)
				}
				select {
				case kind := <-ran:
					if kind != "campaign.launch" {
						t.Errorf("the runner ran %q; want campaign.launch", kind)
					}
				case <-time.After(5 * time.Second):
					t.Error("the in-process queue did not hand the job to the runner")
				}
			case queueOf:
				got = string(q)
			}
			if got != tt.want {
				t.Errorf("queue %s (%T); want %s", got, c.Queue, tt.want)
			}
		})
	}
}
