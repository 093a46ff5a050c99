package contact_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestAbsorb: a later input for an email already in the same import is
// folded into the first as Merge folds one into a stored contact: empty
// fields filled (a derived full name follows), tags united, the first
// address and campaign kept; tags that would be too many fail it, leaving
// the first input as it was.
func TestAbsorb(t *testing.T) {
	t.Parallel()
	camp := &contact.Campaign{CampaignID: "k1"}
	for _, tt := range []struct {
		name      string
		first     contact.Input
		later     contact.Input
		want      contact.Input
		tagsFail  bool
		unchanged bool
	}{
		{"fills empty fields, keeps set ones",
			contact.Input{MailID: "a@b.co", FirstName: "Ada", FullName: "Ada", JobTitle: "CTO"},
			contact.Input{MailID: "a@b.co", FirstName: "Augusta", LastName: "King", JobTitle: "CEO", PhoneNumber: "+1"},
			contact.Input{MailID: "a@b.co", FirstName: "Ada", LastName: "King", FullName: "Ada King", JobTitle: "CTO", PhoneNumber: "+1"},
			false, false},
		{"a full name given on its own is kept",
			contact.Input{MailID: "a@b.co", FirstName: "Ada", FullName: "Countess Lovelace"},
			contact.Input{MailID: "a@b.co", LastName: "King"},
			contact.Input{MailID: "a@b.co", FirstName: "Ada", LastName: "King", FullName: "Countess Lovelace"},
			false, false},
		{"tags united case-insensitively",
			contact.Input{MailID: "a@b.co", Tags: []string{"vip"}},
			contact.Input{MailID: "a@b.co", Tags: []string{"VIP", "founder"}},
			contact.Input{MailID: "a@b.co", Tags: []string{"vip", "founder"}},
			false, false},
		{"the first address and campaign stay; a missing one is taken",
			contact.Input{MailID: "a@b.co", Address: contact.Address{City: "London"}},
			contact.Input{MailID: "a@b.co", Address: contact.Address{City: "Bath"}, Campaign: camp},
			contact.Input{MailID: "a@b.co", Address: contact.Address{City: "London"}, Campaign: camp},
			false, false},
		{"too many tags together fail, changing nothing",
			contact.Input{MailID: "a@b.co", FirstName: "Ada", Tags: tags(40)},
			contact.Input{MailID: "a@b.co", LastName: "King", Tags: append(tags(30), "x", "y", "z", "w", "v", "u", "s", "r", "q", "p", "o")},
			contact.Input{MailID: "a@b.co", FirstName: "Ada", Tags: tags(40)},
			true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.first
			err := in.Absorb(tt.later)
			var e *gifting.Error
			if tt.tagsFail != (asDomainError(err, &e) && e.Details["tags"] != "") {
				t.Fatalf("Absorb = %v; want a tags problem: %v", err, tt.tagsFail)
			}
			if fmt.Sprint(in) != fmt.Sprint(tt.want) {
				t.Errorf("after Absorb %+v; want %+v", in, tt.want)
			}
		})
	}
}

// TestTagsFit: a merge may not give a contact more than 50 tags; tags it
// already has, in any case, do not count twice.
func TestTagsFit(t *testing.T) {
	t.Parallel()
	c := contact.New("c1", "acme", contact.Stored{}, contact.Input{MailID: "a@b.co", Tags: tags(48)}, contact.Source{}, time.Now())
	for _, tt := range []struct {
		name string
		add  []string
		fits bool
	}{
		{"two more", []string{"x", "y"}, true},
		{"known ones in another case", append([]string{"TAG0", "Tag1"}, "x", "y"), true},
		{"three more", []string{"x", "y", "z"}, false},
		{"a repeat counts once", []string{"x", "X", "y"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.TagsFit(contact.Input{Tags: tt.add}); (err == nil) != tt.fits {
				t.Errorf("TagsFit(%v) = %v; want fits %v", tt.add, err, tt.fits)
			}
		})
	}
}

// TestAddCampaign: a campaign shows once on a contact, and a contact shows
// at most MaxCampaigns of them.
func TestAddCampaign(t *testing.T) {
	t.Parallel()
	var c contact.Contact
	c.Normalize()
	for i := range contact.MaxCampaigns + 5 {
		c.AddCampaign(contact.Campaign{CampaignID: fmt.Sprint("k", i), Status: "pending"})
		c.AddCampaign(contact.Campaign{CampaignID: fmt.Sprint("k", i), Status: "live"})
	}
	if len(c.Usage.CampaignIDs) != contact.MaxCampaigns || len(c.Campaigns) != contact.MaxCampaigns ||
		c.Campaigns[0].Status != "pending" || slices.Contains(c.Usage.CampaignIDs, fmt.Sprint("k", contact.MaxCampaigns)) {
		t.Errorf("%d campaign ids, %d campaigns, first %+v; want the first %d, each once as first added",
			len(c.Usage.CampaignIDs), len(c.Campaigns), c.Campaigns[0], contact.MaxCampaigns)
	}
}

// TestSearchText: a search matches the names, email and company, in lower
// case; a full name that is only first and last name is not repeated.
func TestSearchText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		c    contact.Contact
		want string
	}{
		{"derived full name", contact.Contact{FirstName: "Ada", LastName: "Lovelace", FullName: "Ada Lovelace", MailID: "ada@x.io", CompanyName: "Engines"},
			"ada lovelace ada@x.io engines"},
		{"own full name", contact.Contact{FirstName: "Ada", FullName: "Countess Lovelace", MailID: "ada@x.io"},
			"ada  countess lovelace ada@x.io "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.SearchText(); got != tt.want {
				t.Errorf("SearchText = %q, want %q", got, tt.want)
			}
		})
	}
}
