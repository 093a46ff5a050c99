// Package webhooks sends change messages to tenants' endpoints: Standard
// Webhooks signatures, and an HTTP client that only dials safe targets.
package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// secretPrefix starts every signing secret (Standard Webhooks' whsec_).
const secretPrefix = "whsec_"

// NewSecret returns a new signing secret: whsec_ and the base64 of 32
// random bytes.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// Signature is the webhook-signature header of body sent as message id at
// ts: "v1,<base64 HMAC-SHA256 of id.ts.body>" for each secret (its key the
// base64-decoded part after whsec_), space-separated.
func Signature(secrets []string, id string, ts time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, secretPrefix))
		if err != nil {
			return "", fmt.Errorf("webhook secret: %w", err)
		}
		mac := hmac.New(sha256.New, key)
		fmt.Fprintf(mac, "%s.%d.", id, ts.Unix())
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " "), nil
}

// Timeout bounds one attempt, from dialing to the end of the answer.
const Timeout = 10 * time.Second

// Policy says which targets a deployment may deliver to.
type Policy struct {
	// AllowLocal allows http URLs and loopback and private addresses: for
	// `make run` and the tests only (WEBHOOKS_ALLOW_LOCAL).
	AllowLocal bool
}

// ErrUnsafeTarget is an endpoint URL or address deliveries never go to.
var ErrUnsafeTarget = errors.New("unsafe webhook target")

// CheckURL refuses what can be refused before dialing: a scheme other than
// https (http too when AllowLocal), and a literal IP address that is not
// public. A host name is checked on the address it resolves to, when
// dialed (Client).
func (p Policy) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnsafeTarget, err)
	}
	if u.Scheme != "https" && !(p.AllowLocal && u.Scheme == "http") {
		return fmt.Errorf("%w: only https URLs", ErrUnsafeTarget)
	}
	if ip, err := netip.ParseAddr(strings.Trim(u.Hostname(), "[]")); err == nil {
		return p.checkAddr(ip)
	}
	if h := strings.ToLower(u.Hostname()); !p.AllowLocal && (h == "localhost" || strings.HasSuffix(h, ".localhost")) {
		return fmt.Errorf("%w: loopback host", ErrUnsafeTarget)
	}
	return nil
}

// checkAddr refuses an address that is not a public unicast one:
// loopback, private, link-local (the cloud metadata service at
// 169.254.169.254 and fd00:ec2::254 among them), unspecified, multicast,
// shared (100.64/10), reserved and the other special-purpose ranges no
// public receiver has, unless AllowLocal allows loopback and private ones.
// An IPv6 address that carries an IPv4 one a gateway would reach (NAT64,
// 6to4) is judged by that IPv4 address, as an IPv4-mapped one
// (::ffff:0:0/96) is.
func (p Policy) checkAddr(ip netip.Addr) error {
	ip = ip.Unmap()
	if v4, ok := embeddedV4(ip); ok {
		if err := p.checkAddr(v4); err != nil {
			return fmt.Errorf("%w (inside %s)", err, ip)
		}
		return nil
	}
	local := ip.IsLoopback() || ip.IsPrivate()
	bad := ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() ||
		ip.IsInterfaceLocalMulticast() || ip == awsMetadataV6
	for _, n := range notGlobal {
		bad = bad || (n.Contains(ip) && !local)
	}
	if bad || (local && !p.AllowLocal) {
		return fmt.Errorf("%w: %s is not a public address", ErrUnsafeTarget, ip)
	}
	return nil
}

// embeddedV4 is the IPv4 address inside a NAT64 (64:ff9b::/96) or 6to4
// (2002::/16) address.
func embeddedV4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

var (
	awsMetadataV6 = netip.MustParseAddr("fd00:ec2::254")
	nat64         = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour     = netip.MustParsePrefix("2002::/16")
	// notGlobal are the IANA special-purpose ranges that are not globally
	// reachable and that the checks above do not already name.
	notGlobal = []netip.Prefix{
		netip.MustParsePrefix("0.0.0.0/8"),       // this network
		netip.MustParsePrefix("100.64.0.0/10"),   // shared address space
		netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
		netip.MustParsePrefix("192.0.2.0/24"),    // documentation
		netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
		netip.MustParsePrefix("198.51.100.0/24"), // documentation
		netip.MustParsePrefix("203.0.113.0/24"),  // documentation
		netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the limited broadcast
		netip.MustParsePrefix("::/96"),           // IPv4-compatible (:: and ::1 are judged above)
		netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT): inside translators only
		netip.MustParsePrefix("fec0::/10"),       // site-local: deprecated, never global (RFC 3879)
		netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
		netip.MustParsePrefix("100::/64"),        // discard-only
		netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, Teredo among them
		netip.MustParsePrefix("2001:db8::/32"),   // documentation
	}
)

// Client is the HTTP client of deliveries: it checks every address it
// dials (after DNS, so a name that resolves to a private address is
// refused however it resolved when the endpoint was saved), follows no
// redirect, uses no proxy, and gives up after Timeout.
func (p Policy) Client() *http.Client {
	dialer := &net.Dialer{
		Timeout: Timeout,
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrUnsafeTarget, err)
			}
			return p.checkAddr(ap.Addr())
		},
	}
	return &http.Client{
		Timeout: Timeout,
		Transport: &http.Transport{
			DialContext:         dialer.DialContext,
			TLSHandshakeTimeout: Timeout,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Result is the outcome of one attempt.
type Result struct {
	// StatusCode is the answer's status, 0 when there was none.
	StatusCode int
	Duration   time.Duration
	// Err is why the attempt failed: no answer, or one outside 2xx.
	Err error
}

// Send POSTs body to rawURL as message id, signed with secrets at ts.
func Send(ctx context.Context, c *http.Client, rawURL string, secrets []string, id string, ts time.Time, body []byte) Result {
	start := time.Now()
	res := func(code int, err error) Result {
		return Result{StatusCode: code, Duration: time.Since(start), Err: err}
	}
	sig, err := Signature(secrets, id, ts, body)
	if err != nil {
		return res(0, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return res(0, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "gift-campaign-webhooks/1")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := c.Do(req)
	if err != nil {
		return res(0, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return res(resp.StatusCode, fmt.Errorf("answered %d", resp.StatusCode))
	}
	return res(resp.StatusCode, nil)
}
