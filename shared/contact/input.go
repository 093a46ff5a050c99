package contact

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
)

// Input is a contact as a caller submits it: one entry of a bulk add to a
// list, or the contactDetails of add-recipient. Validate normalizes it
// (trims, lower-cases the email) before it is stored or merged.
type Input struct {
	MailID       string
	FirstName    string
	LastName     string
	FullName     string
	CompanyName  string
	JobTitle     string
	PhoneNumber  string
	LinkedinURL  string
	ProfileImage string
	// Locale is the contact's language, a BCP 47 tag stored in canonical
	// form (i18n.Canonical): its pages and emails are in it.
	Locale string
	// Tags are tag names; the stored contact gets {name, color} with a
	// colour that depends only on the name.
	Tags    []string
	Address Address
	// Campaign, when set, is added (once) to the contact's usage and
	// campaigns.
	Campaign *Campaign
}

// Limits of a contact's fields, in characters.
const (
	maxNameLen    = 200
	maxTagLen     = 50
	maxTags       = 50
	maxPhoneLen   = 40
	maxURLLen     = gifting.MaxURLLength
	maxAddressLen = 200
	maxNotesLen   = 5000
)

// Validate normalizes the input in place and reports every problem by JSON
// field name (VALIDATION_FAILED). mailId is required and must be an email
// address; it is lower-cased, the form contacts are matched by.
func (in *Input) Validate() error {
	var p gifting.Problems
	if strings.TrimSpace(in.MailID) == "" {
		p.Add("mailId", "is required")
	} else if email, ok := gifting.NormalizeEmail(in.MailID); ok {
		in.MailID = email
	} else {
		p.Add("mailId", "is not a valid email address")
	}
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{
		{"firstName", &in.FirstName, maxNameLen},
		{"lastName", &in.LastName, maxNameLen},
		{"fullName", &in.FullName, 2*maxNameLen + 1},
		{"companyName", &in.CompanyName, maxNameLen},
		{"jobTitle", &in.JobTitle, maxNameLen},
		{"phoneNumber", &in.PhoneNumber, maxPhoneLen},
		{"linkedinUrl", &in.LinkedinURL, maxURLLen},
		{"profileImage", &in.ProfileImage, maxURLLen},
	} {
		*f.v = strings.TrimSpace(*f.v)
		p.AtMost(f.name, *f.v, f.max)
	}
	if in.LinkedinURL != "" && !gifting.ValidURL(in.LinkedinURL) {
		p.Add("linkedinUrl", "must be an http(s) URL")
	}
	if in.ProfileImage != "" && !gifting.ValidURL(in.ProfileImage) {
		p.Add("profileImage", "must be an http(s) URL")
	}
	if in.Locale != "" {
		if l, err := i18n.Canonical(in.Locale); err != nil {
			p.Add("locale", err.Error())
		} else {
			in.Locale = l
		}
	}
	if in.FullName == "" {
		in.FullName = strings.TrimSpace(in.FirstName + " " + in.LastName)
	}
	in.Tags = normalizeTags(in.Tags, &p)
	a := &in.Address
	for _, f := range []*string{&a.Line1, &a.Line2, &a.City, &a.State, &a.Country, &a.Zip} {
		*f = strings.TrimSpace(*f)
		if gifting.TooLong(*f, maxAddressLen) {
			p.Add("address", "fields must be at most "+itoa(maxAddressLen)+" characters")
		}
	}
	return p.Err()
}

// MailIDOf is the email a bulk-add entry names: mailId, or email, the
// alias the quick-start guide writes. An entry that sends both with
// different addresses is refused (VALIDATION_FAILED on email): it is not
// clear which one is meant.
func MailIDOf(mailID, email string) (string, error) {
	switch {
	case mailID == "":
		return email, nil
	case email != "" && !sameEmail(email, mailID):
		return "", &gifting.Error{Code: gifting.CodeValidation, Message: "email and mailId differ",
			Details: map[string]string{"email": "differs from mailId; send one of them"}}
	}
	return mailID, nil
}

func sameEmail(a, b string) bool {
	na, _ := gifting.NormalizeEmail(a)
	nb, _ := gifting.NormalizeEmail(b)
	return na == nb
}

// normalizeTags trims tag names and drops empty and repeated ones (compared
// case-insensitively, keeping the first spelling).
func normalizeTags(tags []string, p *gifting.Problems) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		k := strings.ToLower(t)
		if t == "" || seen[k] {
			continue
		}
		if gifting.TooLong(t, maxTagLen) {
			p.Add("tags", "each tag must be at most "+itoa(maxTagLen)+" characters")
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	if len(out) > maxTags {
		p.Add("tags", "at most "+itoa(maxTags)+" tags")
	}
	return out
}

// tagPalette holds the colours tags are given.
var tagPalette = []string{
	"#e53935", "#d81b60", "#8e24aa", "#5e35b1", "#3949ab", "#1e88e5",
	"#039be5", "#00897b", "#43a047", "#7cb342", "#f4511e", "#6d4c41",
}

// TagColor is the colour of a tag name. It depends only on the name
// (case-insensitively), so a tag looks the same on every contact.
func TagColor(name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(name)))
	return tagPalette[h.Sum32()%uint32(len(tagPalette))]
}

// LinkedinKey is the form LinkedIn URLs are matched by: lower-cased, without
// scheme, "www." or a trailing slash, query or fragment
// ("linkedin.com/in/jane-doe"). It is "" for an empty URL.
func LinkedinKey(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	u = strings.TrimPrefix(u, "www.")
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.TrimRight(u, "/")
}

func itoa(i int) string { return strconv.Itoa(i) }
