package webhooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/webhooks"
)

// TestCheckURL: in a deployment only public https URLs are accepted when
// an endpoint is saved; the local runner also accepts http and loopback or
// private addresses, never link-local or metadata ones.
func TestCheckURL(t *testing.T) {
	for _, tt := range []struct {
		name       string
		url        string
		deployment bool // accepted in a deployment
		local      bool // accepted by make run
	}{
		{"public https name", "https://hooks.example.com/gifts", true, true},
		{"public https address", "https://93.184.216.34/gifts", true, true},
		{"http", "http://hooks.example.com/gifts", false, true},
		{"loopback address", "https://127.0.0.1:8443/", false, true},
		{"loopback IPv6", "https://[::1]/", false, true},
		{"localhost", "https://localhost/", false, true},
		{"private address", "https://10.1.2.3/", false, true},
		{"cloud metadata", "https://169.254.169.254/latest/meta-data", false, false},
		{"cloud metadata IPv6", "https://[fd00:ec2::254]/", false, false},
		{"shared address space", "https://100.64.0.1/", false, false},
		{"unspecified", "https://0.0.0.0/", false, false},
		{"site-local IPv6 (fec0::/10, deprecated)", "https://[fec0::1]/", false, false},
		{"site-local IPv6, its last block", "https://[feff:ffff::1]/", false, false},
		{"IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/", false, true},
		{"IPv4-mapped, hex", "https://[::ffff:7f00:1]/", false, true},
		{"IPv4-mapped metadata", "https://[::ffff:169.254.169.254]/", false, false},
		{"IPv4-mapped public", "https://[::ffff:93.184.216.34]/", true, true},
		{"IPv4-translated loopback (::ffff:0:0:0/96)", "https://[::ffff:0:7f00:1]/", false, false},
		{"IPv4-translated private", "https://[::ffff:0:a00:1]/", false, false},
		{"IPv4-translated public", "https://[::ffff:0:5db8:d822]/", false, false},
		{"not a URL scheme we send to", "ftp://hooks.example.com/", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []struct {
				policy webhooks.Policy
				want   bool
			}{{webhooks.Policy{}, tt.deployment}, {webhooks.Policy{AllowLocal: true}, tt.local}} {
				err := p.policy.CheckURL(tt.url)
				if (err == nil) != p.want {
					t.Errorf("AllowLocal %v: CheckURL(%q) = %v, want accepted %v", p.policy.AllowLocal, tt.url, err, p.want)
				}
				if err != nil && !errors.Is(err, webhooks.ErrUnsafeTarget) {
					t.Errorf("error %v is not ErrUnsafeTarget", err)
				}
			}
		})
	}
}

// TestClientChecksTheDialedAddress: a name that passed when the endpoint
// was saved is checked again on the address it resolves to when dialed, so
// a deployment's client never reaches a loopback receiver through DNS; and
// no client follows a redirect.
func TestClientChecksTheDialedAddress(t *testing.T) {
	var hits, redirected atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { redirected.Add(1) }))
	t.Cleanup(target.Close)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, target.URL, http.StatusFound)
		}
	}))
	t.Cleanup(rc.Close)
	// localhost resolves to the loopback receiver.
	byName := strings.Replace(rc.URL, "127.0.0.1", "localhost", 1)
	send := func(p webhooks.Policy, url string) webhooks.Result {
		return webhooks.Send(context.Background(), p.Client(), url, []string{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8ZRDJvGiYH0="},
			"msg_1", time.Now(), []byte(`{}`))
	}

	t.Run("deployment: refused at dial, nothing sent", func(t *testing.T) {
		r := send(webhooks.Policy{}, byName+"/hooks")
		if !errors.Is(r.Err, webhooks.ErrUnsafeTarget) || r.StatusCode != 0 {
			t.Errorf("got status %d, error %v; want ErrUnsafeTarget and no answer", r.StatusCode, r.Err)
		}
		if n := hits.Load(); n != 0 {
			t.Errorf("the receiver got %d requests", n)
		}
	})
	t.Run("local: delivered", func(t *testing.T) {
		if r := send(webhooks.Policy{AllowLocal: true}, byName+"/hooks"); r.Err != nil || r.StatusCode != http.StatusOK {
			t.Errorf("got status %d, error %v; want 200", r.StatusCode, r.Err)
		}
	})
	t.Run("a redirect is an answer, not followed", func(t *testing.T) {
		r := send(webhooks.Policy{AllowLocal: true}, rc.URL+"/moved")
		if r.StatusCode != http.StatusFound || r.Err == nil {
			t.Errorf("got status %d, error %v; want a failed 302", r.StatusCode, r.Err)
		}
		if n := redirected.Load(); n != 0 {
			t.Errorf("the redirect's target got %d requests", n)
		}
	})
}
