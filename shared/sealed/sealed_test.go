package sealed_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
	"github.com/giftcampaign/service/shared/testenv"
)

// box returns a Box over the KMS emulator's key with limits: what one
// process of a function holds.
func box(t *testing.T, limits sealed.Limits) *sealed.Box {
	t.Helper()
	cfg := testenv.KMSConfig(t)
	client, err := kmssecrets.NewClient(cfg.KMSEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	return sealed.New(kmskey.New(client, cfg.KMSKeyID), limits)
}

// TestSealOpensOnlyForItsOwner: a sealed value opens for the owner it was
// sealed for, in another process too (a Box with nothing cached, as the
// worker opens what the webhooks function sealed); for another owner, with
// a byte changed, or with another value's data key, it does not, and that
// is ErrUnopenable, which no retry cures.
func TestSealOpensOnlyForItsOwner(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	sealer, opener := box(t, sealed.DefaultLimits), box(t, sealed.DefaultLimits)
	const secret = "whsec_c2VjcmV0IGtleSBtYXRlcmlhbCBvZiB0aGlydHkgdHdvIQ=="
	v, err := sealer.Seal(ctx, []byte(secret), "webhook-secret/acme/W1")
	if err != nil {
		t.Fatal(err)
	}
	if !sealed.IsSealed(v) || strings.Contains(v, secret) || strings.Contains(v, secret[len("whsec_"):]) {
		t.Fatalf("sealed value %q is not sealed or holds the secret", v)
	}
	got, err := opener.Open(ctx, v, "webhook-secret/acme/W1")
	if err != nil || string(got) != secret {
		t.Fatalf("open: %q, %v; want the secret", got, err)
	}
	other, err := sealer.Seal(ctx, []byte("another secret"), "webhook-secret/acme/W2")
	if err != nil {
		t.Fatal(err)
	}
	otherKey, err := box(t, sealed.Limits{SealKeyAge: time.Hour, SealKeyUses: 1, OpenKeyAge: time.Hour, OpenKeys: 1}).
		Seal(ctx, []byte("x"), "webhook-secret/acme/W1")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(v, ".")
	flipped := []byte(parts[3])
	flipped[len(flipped)/2] ^= 1
	for name, tt := range map[string]struct{ value, owner string }{
		"another webhook":              {v, "webhook-secret/acme/W2"},
		"another organization":         {v, "webhook-secret/globex/W1"},
		"a ciphertext byte changed":    {strings.Join([]string{parts[0], parts[1], parts[2], string(flipped)}, "."), "webhook-secret/acme/W1"},
		"another value's data key":     {strings.Join(append(strings.Split(otherKey, ".")[:3], parts[3]), "."), "webhook-secret/acme/W1"},
		"a data key KMS did not issue": {parts[0] + "." + parts[1] + ".AAAA" + parts[2][4:] + "." + parts[3], "webhook-secret/acme/W1"},
		"a clear value":                {secret, "webhook-secret/acme/W1"},
		"the other webhook's value":    {other, "webhook-secret/acme/W1"},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := box(t, sealed.DefaultLimits).Open(ctx, tt.value, tt.owner)
			if !errors.Is(err, sealed.ErrUnopenable) {
				t.Errorf("open: %q, %v; want ErrUnopenable", got, err)
			}
		})
	}
}

// TestBoxCachesDataKeys: a burst of seals asks KMS for one data key until
// the key's uses or age run out, and a burst of opens (a delivery burst,
// concurrent) asks KMS to decrypt each data key once.
func TestBoxCachesDataKeys(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	sealer := box(t, sealed.Limits{SealKeyAge: time.Hour, SealKeyUses: 50, OpenKeyAge: time.Hour, OpenKeys: 100})
	values := make([]string, 200)
	for i := range values {
		v, err := sealer.Seal(ctx, []byte("secret"), "owner")
		if err != nil {
			t.Fatal(err)
		}
		values[i] = v
	}
	if st := sealer.Stats(); st.Generated != 4 || st.Decrypted != 0 {
		t.Errorf("200 seals at 50 uses a key: %+v, want 4 keys generated and none decrypted", st)
	}

	opener := box(t, sealed.DefaultLimits)
	var wg sync.WaitGroup
	for range 5 {
		for _, v := range values {
			wg.Go(func() {
				if _, err := opener.Open(ctx, v, "owner"); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	if st := opener.Stats(); st.Decrypted != 4 {
		t.Errorf("1,000 opens of values under 4 data keys: %d KMS Decrypt calls, want 4", st.Decrypted)
	}

	aging := box(t, sealed.Limits{SealKeyAge: 50 * time.Millisecond, SealKeyUses: 1000, OpenKeyAge: time.Hour, OpenKeys: 10})
	for range 2 {
		if _, err := aging.Seal(ctx, []byte("secret"), "owner"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(60 * time.Millisecond)
	}
	if st := aging.Stats(); st.Generated != 2 {
		t.Errorf("two seals further apart than the key's age: %d keys generated, want 2", st.Generated)
	}
}

// TestOpenWithoutKMS: an unreachable KMS is not ErrUnopenable (the
// delivery waits and is tried again), and nothing is cached from it.
func TestOpenWithoutKMS(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	v, err := box(t, sealed.DefaultLimits).Seal(ctx, []byte("secret"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	client, err := kmssecrets.NewClient("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	down := sealed.New(kmskey.New(client, testenv.KMSConfig(t).KMSKeyID), sealed.DefaultLimits)
	if _, err := down.Open(ctx, v, "owner"); err == nil || errors.Is(err, sealed.ErrUnopenable) {
		t.Errorf("open with KMS unreachable: %v, want a KMS error other than ErrUnopenable", err)
	}
}
