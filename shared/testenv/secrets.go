package testenv

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/s3files"
	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
)

// KMSConfig returns the KMS emulator of this test run (KMS_ENDPOINT, and
// KMS_KEY_ID its key, which `make test` sets) as the service's
// configuration has it, failing the test when there is none.
func KMSConfig(t testing.TB) app.Config {
	t.Helper()
	endpoint := localstack.NeedEnv(t, "KMS_ENDPOINT", "the KMS emulator")
	keyID := localstack.NeedEnv(t, "KMS_KEY_ID", "the KMS emulator's key")
	return app.Config{KMSEndpoint: endpoint, KMSKeyID: keyID}
}

// Secrets returns a sealer of its own (empty caches) over the KMS
// emulator's key, as a function wired with app.WithSecrets has.
func Secrets(t testing.TB) *sealed.Box {
	t.Helper()
	client, keyID := kmsClient(t)
	return sealed.New(kmskey.New(client, keyID), sealed.DefaultLimits)
}

// CodeSecrets returns a sealer of digital gifts' codes of its own over the
// KMS emulator's key (kmskey.CodesContext), as a function wired with
// app.WithCodeSecrets has.
func CodeSecrets(t testing.TB) *sealed.Box {
	t.Helper()
	client, keyID := kmsClient(t)
	return sealed.New(kmskey.NewCodes(client, keyID), sealed.DefaultLimits)
}

// SuppressionKey is the option of a store that keys suppressions with the
// stack's suppression key, sealed by the KMS emulator's key
// (kmskey.SuppressionContext), as every function's store has it
// (app.SuppressionKeyOption). Store gives it to every store it makes.
func SuppressionKey(t testing.TB) dynamo.Option {
	t.Helper()
	client, keyID := kmsClient(t)
	return dynamo.WithSuppressionKey(sealed.New(kmskey.NewSuppression(client, keyID), sealed.DefaultLimits))
}

// kmsClient is a client of the KMS emulator and its key's id.
func kmsClient(t testing.TB) (*kms.Client, string) {
	t.Helper()
	cfg := KMSConfig(t)
	client, err := kmssecrets.NewClient(cfg.KMSEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	return client, cfg.KMSKeyID
}

// Files returns the S3 emulator's imports bucket of this test run
// (S3_ENDPOINT and IMPORTS_BUCKET, which `make test` sets), as a function
// wired with app.WithFiles has it, failing the test when there is none.
func Files(t testing.TB) contactimport.Files {
	t.Helper()
	cfg := app.Config{S3Endpoint: localstack.NeedEnv(t, "S3_ENDPOINT", "the S3 emulator"),
		ImportsBucket: localstack.NeedEnv(t, "IMPORTS_BUCKET", "the S3 emulator's bucket")}
	f, err := s3files.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
