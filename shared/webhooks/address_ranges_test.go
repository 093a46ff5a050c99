package webhooks_test

import (
	"errors"
	"testing"

	"github.com/giftcampaign/service/shared/webhooks"
)

// TestCheckURLRefusesAddressesThatAreNotGlobal: an endpoint saved with a
// literal address that no public receiver can have (reserved, broadcast,
// "this network", documentation and benchmarking ranges), or an IPv6
// address that carries a private or metadata IPv4 address inside it
// (NAT64, 6to4, IPv4-compatible, Teredo), is refused in a deployment (and
// locally, but for the private addresses make run allows); the same
// embeddings of a public IPv4 address are kept.
func TestCheckURLRefusesAddressesThatAreNotGlobal(t *testing.T) {
	for _, tt := range []struct {
		name  string
		url   string
		ok    bool // accepted in a deployment
		local bool // accepted by make run
	}{
		{"this network 0.0.0.0/8", "https://0.1.2.3/", false, false},
		{"reserved 240.0.0.0/4", "https://240.0.0.1/", false, false},
		{"limited broadcast", "https://255.255.255.255/", false, false},
		{"IETF protocol assignments", "https://192.0.0.170/", false, false},
		{"documentation TEST-NET-1", "https://192.0.2.10/", false, false},
		{"benchmarking", "https://198.18.0.1/", false, false},
		{"NAT64 of the metadata service", "https://[64:ff9b::a9fe:a9fe]/", false, false},
		{"NAT64 of a private address", "https://[64:ff9b::a00:1]/", false, true},
		{"local-use NAT64", "https://[64:ff9b:1::a00:1]/", false, false},
		{"6to4 of the metadata service", "https://[2002:a9fe:a9fe::1]/", false, false},
		{"6to4 of a private address", "https://[2002:a00:1::1]/", false, true},
		{"IPv4-compatible metadata address", "https://[::a9fe:a9fe]/", false, false},
		{"Teredo", "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", false, false},
		{"IPv6 documentation", "https://[2001:db8::1]/", false, false},
		{"NAT64 of a public address", "https://[64:ff9b::5db8:d822]/", true, true},
		{"6to4 of a public address", "https://[2002:5db8:d822::1]/", true, true},
		{"public IPv6", "https://[2606:4700:4700::1111]/", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []struct {
				policy webhooks.Policy
				want   bool
			}{{webhooks.Policy{}, tt.ok}, {webhooks.Policy{AllowLocal: true}, tt.local}} {
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
