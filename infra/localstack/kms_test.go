package localstack

import (
	"errors"
	"os"
	"testing"

	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
)

// TestStartKMS starts two KMS emulators: each seeds its key with key
// material of its own, so a value sealed under one does not open under
// the other (nothing sealed by one run opens in the next); Stop removes an
// emulator's keys from the disk.
func TestStartKMS(t *testing.T) {
	t.Parallel()
	box := func() (*KMS, *sealed.Box) {
		k, err := StartKMS(t.Context(), testRoot(t), 0)
		NeedInstalled(t, err)
		t.Cleanup(func() { _ = k.Stop() })
		client, err := kmssecrets.NewClient(k.Endpoint())
		if err != nil {
			t.Fatal(err)
		}
		return k, sealed.New(kmskey.New(client, k.KeyID()), sealed.DefaultLimits)
	}
	first, one := box()
	_, other := box()
	v, err := one.Seal(t.Context(), []byte("secret"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := one.Open(t.Context(), v, "owner"); err != nil || string(got) != "secret" {
		t.Fatalf("open under the same emulator: %q, %v", got, err)
	}
	if got, err := other.Open(t.Context(), v, "owner"); !errors.Is(err, sealed.ErrUnopenable) {
		t.Errorf("open under another emulator: %q, %v; want ErrUnopenable", got, err)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emulator's directory %s is still there after Stop: %v", first.dir, err)
	}
}
