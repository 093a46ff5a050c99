// Package giftcodes is the code pools of digital gifts: the gift cards,
// vouchers and subscription codes an organization buys in bulk and
// uploads to a digital gift (catalog.GiftDigital), one of which a claim
// hands to its recipient, exactly once.
//
// A code is sealed before it is stored (shared/sealed: envelope encryption
// under the stack's KMS key, bound to the code's own key), so a table
// export alone reveals none. Codes are told apart without storing them in
// clear by an HMAC of the code under a key of the gift's pool (itself
// sealed), so a code uploaded twice to a gift is refused the second time
// and no dictionary of short codes can be run against a table export.
//
// The package holds the domain (this file: a code's checks, its id, the
// upload's report, the summary), the port (store.go) and the application
// layer (app.go). Storage implements the port and decides nothing.
package giftcodes

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// Bounds of an upload: 1,000 codes a request (a CSV export of a provider's
// order is usually split in such batches; an upload of 1,000 is 11
// transactions), a code of up to 200 characters and a PIN of up to 64.
const (
	MaxCodes   = 1000
	maxCodeLen = 200
	maxPINLen  = 64
)

// Code is one code of a digital gift as the organization submits it: the
// code, and optionally a PIN, a URL where it is redeemed (https) and when
// it expires.
type Code struct {
	Code      string
	PIN       string
	URL       string
	ExpiresAt *time.Time
}

// Secret is what a code's sealed value holds: everything its recipient
// is shown, nothing else.
type Secret struct {
	Code string `json:"code"`
	PIN  string `json:"pin,omitempty"`
	URL  string `json:"url,omitempty"`
}

// Encode is the secret's sealed plaintext.
func (s Secret) Encode() []byte {
	b, _ := json.Marshal(s) // three strings: cannot fail
	return b
}

// Check trims c and returns the problems of c at now, nil when it can be
// added: a code (no control characters, at most 200 characters), a PIN of
// at most 64, an https URL, and an expiry still ahead.
func Check(c *Code, now time.Time) map[string]string {
	c.Code, c.PIN, c.URL = strings.TrimSpace(c.Code), strings.TrimSpace(c.PIN), strings.TrimSpace(c.URL)
	p := map[string]string{}
	switch {
	case c.Code == "":
		p["code"] = "is required"
	case utf8.RuneCountInString(c.Code) > maxCodeLen:
		p["code"] = "must be at most " + strconv.Itoa(maxCodeLen) + " characters"
	case strings.ContainsFunc(c.Code, isControl):
		p["code"] = "must not hold control characters"
	}
	if utf8.RuneCountInString(c.PIN) > maxPINLen || strings.ContainsFunc(c.PIN, isControl) {
		p["pin"] = "must be at most " + strconv.Itoa(maxPINLen) + " characters, without control characters"
	}
	if c.URL != "" && (!strings.HasPrefix(c.URL, "https://") || !gifting.ValidURL(c.URL) || gifting.TooLong(c.URL, gifting.MaxURLLength)) {
		p["url"] = "must be an https URL of at most " + strconv.Itoa(gifting.MaxURLLength) + " characters"
	}
	if c.ExpiresAt != nil && !c.ExpiresAt.After(now) {
		p["expiresAt"] = "is in the past: an expired code can never be handed out"
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// ID is the code's id within its gift's pool: the HMAC-SHA256 of the code
// under the pool's key, 128 bits in hex. The same code has the same id
// (so a second upload of it is refused), and the id says nothing of the
// code without the key.
func ID(poolKey []byte, code string) string {
	m := hmac.New(sha256.New, poolKey)
	m.Write([]byte(code))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// Last4 is how a code is shown anywhere but its recipient's page: its last
// four characters after a mask ("••••1234"); a code of four characters or
// fewer is masked whole.
func Last4(code string) string {
	r := []rune(code)
	if len(r) <= 4 {
		return "••••"
	}
	return "••••" + string(r[len(r)-4:])
}

// PoolOwner and CodeOwner bind a sealed pool key and a sealed code to what
// they belong to (shared/sealed's owner): a sealed value copied onto
// another gift or code does not open.
func PoolOwner(orgID, giftID string) string { return "giftcodes/" + orgID + "/" + giftID }

// CodeOwner is the owner of one code's sealed secret.
func CodeOwner(orgID, giftID, codeID string) string {
	return PoolOwner(orgID, giftID) + "/" + codeID
}

// Outcomes of one code of an upload, as a bulk add reports its items (a
// 207 when any failed).
const (
	ItemAdded  = "added"
	ItemFailed = "failed"
)

// Item is what happened to one code of an upload: its position in the
// request, its masked form, and for a failed one why.
type Item struct {
	Index   int
	Status  string
	Masked  string
	Reason  string
	Details map[string]string
}

// Report is an upload's outcome, code by code, with totals.
type Report struct {
	Items  []Item
	Added  int
	Failed int
}

// add records one code's outcome.
func (r *Report) add(it Item) {
	r.Items = append(r.Items, it)
	if it.Status == ItemAdded {
		r.Added++
	} else {
		r.Failed++
	}
}

// Summary counts a digital gift's codes: Total uploaded, Assigned to
// recipients, Expired (past expiresAt, never assigned) and Available (the
// rest: what claims can still take). It never holds a code.
type Summary struct {
	GiftID    string
	Total     int
	Available int
	Assigned  int
	Expired   int
}
