package contact_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

func TestContactInputValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		in    contact.Input
		field string // "" when valid
	}{
		{"ok, email normalized", contact.Input{MailID: " Ada@Example.COM "}, ""},
		{"missing email", contact.Input{FirstName: "Ada"}, "mailId"},
		{"display name", contact.Input{MailID: "Ada <ada@example.com>"}, "mailId"},
		{"no domain dot", contact.Input{MailID: "ada@example"}, "mailId"},
		{"bad linkedin", contact.Input{MailID: "a@b.co", LinkedinURL: "linkedin.com/in/a"}, "linkedinUrl"},
		{"bad image", contact.Input{MailID: "a@b.co", ProfileImage: "ftp://x/y.png"}, "profileImage"},
		{"long name", contact.Input{MailID: "a@b.co", LastName: strings.Repeat("x", 201)}, "lastName"},
		{"long tag", contact.Input{MailID: "a@b.co", Tags: []string{strings.Repeat("t", 51)}}, "tags"},
		{"long address", contact.Input{MailID: "a@b.co", Address: contact.Address{City: strings.Repeat("c", 201)}}, "address"},
		// Every field at its limit passes, one character more fails.
		{"names at their limit", contact.Input{MailID: "a@b.co", FirstName: strings.Repeat("é", 200), LastName: strings.Repeat("x", 200),
			FullName: strings.Repeat("x", 401), CompanyName: strings.Repeat("x", 200), JobTitle: strings.Repeat("x", 200)}, ""},
		{"long first name", contact.Input{MailID: "a@b.co", FirstName: strings.Repeat("x", 201)}, "firstName"},
		{"long full name", contact.Input{MailID: "a@b.co", FullName: strings.Repeat("x", 402)}, "fullName"},
		{"long company", contact.Input{MailID: "a@b.co", CompanyName: strings.Repeat("x", 201)}, "companyName"},
		{"long job title", contact.Input{MailID: "a@b.co", JobTitle: strings.Repeat("x", 201)}, "jobTitle"},
		{"phone at its limit", contact.Input{MailID: "a@b.co", PhoneNumber: strings.Repeat("1", 40)}, ""},
		{"long phone", contact.Input{MailID: "a@b.co", PhoneNumber: strings.Repeat("1", 41)}, "phoneNumber"},
		{"long linkedin", contact.Input{MailID: "a@b.co", LinkedinURL: "https://linkedin.com/in/" + strings.Repeat("x", 2048)}, "linkedinUrl"},
		{"long image", contact.Input{MailID: "a@b.co", ProfileImage: "https://img.example/" + strings.Repeat("x", 2048)}, "profileImage"},
		{"50 tags", contact.Input{MailID: "a@b.co", Tags: tags(50)}, ""},
		{"51 tags", contact.Input{MailID: "a@b.co", Tags: tags(51)}, "tags"},
		{"tag at its limit", contact.Input{MailID: "a@b.co", Tags: []string{strings.Repeat("t", 50)}}, ""},
		{"address at its limit", contact.Input{MailID: "a@b.co", Address: contact.Address{Line1: strings.Repeat("l", 200), Zip: strings.Repeat("9", 200)}}, ""},
		{"long address line 2", contact.Input{MailID: "a@b.co", Address: contact.Address{Line2: strings.Repeat("l", 201)}}, "address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.in.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			var e *gifting.Error
			if !asDomainError(err, &e) || e.Code != gifting.CodeValidation || e.Details[tt.field] == "" {
				t.Errorf("err = %v; want VALIDATION_FAILED naming %s", err, tt.field)
			}
		})
	}
	t.Run("normalizes", func(t *testing.T) {
		in := contact.Input{MailID: " Ada@Example.COM ", FirstName: " Ada ", LastName: "Lovelace", Tags: []string{"vip", " VIP ", "", "speaker"}}
		if err := in.Validate(); err != nil {
			t.Fatal(err)
		}
		if in.MailID != "ada@example.com" || in.FirstName != "Ada" || in.FullName != "Ada Lovelace" || len(in.Tags) != 2 {
			t.Errorf("got %+v", in)
		}
	})
}

// tags are n distinct tag names.
func tags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("tag%d", i)
	}
	return out
}

// TestMailIDOf: a bulk-add entry names its email as mailId or as email
// (the quick-start guide's alias); both may be sent when they are the same
// address, never two different ones.
func TestMailIDOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, mailID, email, want string
		fails                     bool
	}{
		{"mailId", "ada@example.com", "", "ada@example.com", false},
		{"email alone", "", "ada@example.com", "ada@example.com", false},
		{"both, the same address in another case", "Ada@Example.com", " ada@example.COM ", "Ada@Example.com", false},
		{"both, different", "ada@example.com", "grace@example.com", "", true},
		{"neither (Validate says it is required)", "", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := contact.MailIDOf(tt.mailID, tt.email)
			var e *gifting.Error
			if tt.fails {
				if !asDomainError(err, &e) || e.Code != gifting.CodeValidation || e.Details["email"] == "" {
					t.Errorf("MailIDOf = %q, %v; want VALIDATION_FAILED naming email", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("MailIDOf = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func asDomainError(err error, target **gifting.Error) bool {
	e, ok := err.(*gifting.Error)
	*target = e
	return ok
}

func TestContactMerge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := contact.New("c1", "acme", contact.Stored{}, contact.Input{MailID: "ada@example.com", FirstName: "Ada", FullName: "Ada",
		Tags: []string{"vip"}, Address: contact.Address{Line1: "1 Main St", City: "London"}}, contact.Source{Type: "import"}, now)
	later := now.Add(time.Hour)
	camp := contact.Campaign{CampaignID: "k1", CampaignName: "Q3", Status: "live"}
	for range 2 {
		c.Merge(contact.Input{MailID: "ada@example.com", FirstName: "Augusta", LastName: "King", Tags: []string{"VIP", "founder"},
			Address: contact.Address{Line1: "2 High St", City: "Bath"}, Campaign: &camp}, contact.Source{Type: "campaign"}, later)
	}
	if c.FirstName != "Ada" || c.LastName != "King" || c.FullName != "Ada King" {
		t.Errorf("names %q %q %q; want Ada King", c.FirstName, c.LastName, c.FullName)
	}
	if len(c.Tags) != 2 || c.Tags[0].Name != "vip" || c.Tags[1].Color != contact.TagColor("FOUNDER") {
		t.Errorf("tags %+v", c.Tags)
	}
	if c.Address.City != "London" || len(c.Addresses) != 2 || !c.Addresses[0].IsPrimary || c.Addresses[1].IsPrimary {
		t.Errorf("address %+v entries %+v; want London primary, Bath secondary once", c.Address, c.Addresses)
	}
	if len(c.Usage.CampaignIDs) != 1 || len(c.Campaigns) != 1 || len(c.Sources) != 3 || !c.UpdatedAt.Equal(later) {
		t.Errorf("usage %v campaigns %d sources %d updatedAt %v", c.Usage.CampaignIDs, len(c.Campaigns), len(c.Sources), c.UpdatedAt)
	}
	for range 30 {
		c.Merge(contact.Input{}, contact.Source{Type: "import"}, later)
	}
	if len(c.Sources) != contact.MaxSources || c.Sources[0].Type != "import" || !c.Sources[0].AddedAt.Equal(now) {
		t.Errorf("%d sources, first %+v; want %d keeping the first", len(c.Sources), c.Sources[0], contact.MaxSources)
	}
}

func TestLinkedinKey(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"https://www.linkedin.com/in/Ada-L/":   "linkedin.com/in/ada-l",
		"http://linkedin.com/in/ada-l?trk=abc": "linkedin.com/in/ada-l",
		" linkedin.com/in/ada-l#top ":          "linkedin.com/in/ada-l",
		"":                                     "",
	} {
		if got := contact.LinkedinKey(in); got != want {
			t.Errorf("LinkedinKey(%q) = %q, want %q", in, got, want)
		}
	}
}
