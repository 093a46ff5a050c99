package app

import "testing"

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
