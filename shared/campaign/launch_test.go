package campaign

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// draft is a launchable draft of one list, priced at price credits.
func draft(price int64) Campaign {
	c := Campaign{CampaignID: "c1", OrganizationID: "org", Status: Draft, CampaignData: Data{
		ContactListID: "l1", ContactListIDs: []string{"l1"}, GiftIDs: []string{"g1"}, CreditsPerRecipient: price,
	}}
	c.Normalize()
	return c
}

func TestCheckLaunchable(t *testing.T) {
	t.Parallel()
	priced := draft(10)
	priced.CampaignData.GiftIDs, priced.CampaignData.PriceSet = nil, true
	for _, tt := range []struct {
		name string
		edit func(*Campaign)
		msg  string // "" launchable
	}{
		{"a draft with a list and gifts", func(*Campaign) {}, ""},
		{"a draft priced without gifts", func(c *Campaign) { *c = priced }, ""},
		{"live", func(c *Campaign) { c.Status = Live }, "campaign is live; only a draft can be launched"},
		{"preparing", func(c *Campaign) { c.Status = Preparing }, "campaign is preparing; only a draft can be launched"},
		{"no list", func(c *Campaign) { c.CampaignData.ContactListIDs = nil }, "the campaign has no contact list; set contactListIds before launching"},
		{"no gifts, no price", func(c *Campaign) { c.CampaignData.GiftIDs = nil }, "the campaign has no gifts; set campaignData.giftIds before launching"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := draft(10)
			tt.edit(&c)
			err := CheckLaunchable(c)
			switch {
			case tt.msg == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.msg != "" && (gifting.ErrorCode(err) != gifting.CodeConflict || gifting.ErrorMessage(err) != tt.msg):
				t.Errorf("err = %v, want CONFLICT %q", err, tt.msg)
			}
		})
	}
}

// TestCountContacts: a launch pays for the union of its lists' members,
// and never for fewer than a list's own count (an import that died
// between its chunks, an index behind the table).
func TestCountContacts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		lists []ListMembers
		want  int64
	}{
		{"none", nil, 0},
		{"one list", []ListMembers{{Count: 3, IDs: []string{"a", "b", "c"}}}, 3},
		{"a contact in two lists is paid once", []ListMembers{{Count: 2, IDs: []string{"a", "b"}}, {Count: 2, IDs: []string{"b", "c"}}}, 3},
		{"a count ahead of the members read", []ListMembers{{Count: 5, IDs: []string{"a"}}}, 5},
		{"members ahead of a count an import left behind", []ListMembers{{Count: 1, IDs: []string{"a", "b", "c"}}}, 3},
	} {
		if got := CountContacts(tt.lists); got != tt.want {
			t.Errorf("%s: CountContacts = %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestOwnRefs: the launch's transaction checks the organization's own
// template and gifts and every list, never the service catalog's.
func TestOwnRefs(t *testing.T) {
	t.Parallel()
	c := draft(10)
	c.CampaignData.ContactListIDs = []string{"l1", "l2"}
	gifts := []gifting.Gift{{GiftID: "own"}, {GiftID: "cat", IsDelightloop: true}}
	got := OwnRefs(c, &gifting.Template{TemplateID: "t1"}, gifts)
	want := []gifting.Ref{{Kind: gifting.RefTemplate, ID: "t1"}, {Kind: gifting.RefGift, ID: "own"},
		{Kind: gifting.RefContactList, ID: "l1"}, {Kind: gifting.RefContactList, ID: "l2"}}
	if !slices.Equal(got, want) {
		t.Errorf("OwnRefs = %v, want %v", got, want)
	}
	if got := OwnRefs(c, &gifting.Template{TemplateID: "t", IsDelightloop: true}, nil); len(got) != 2 {
		t.Errorf("a catalog template is checked: %v", got)
	}
}

func TestDecideLaunch(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	catalog := []gifting.Gift{{GiftID: "g1", Price: 30, IsDelightloop: true}}
	for _, tt := range []struct {
		name     string
		edit     func(*Campaign)
		contacts int64
		gifts    []gifting.Gift
		code     gifting.Code // "" accepted
	}{
		{"accepted", func(*Campaign) {}, 7, catalog, ""},
		{"no contacts", func(*Campaign) {}, 0, catalog, gifting.CodeConflict},
		{"a price stored out of bounds", func(c *Campaign) { c.CampaignData.CreditsPerRecipient = gifting.MaxCreditsPerRecipient + 1 }, 7, nil, gifting.CodeConflict},
		{"a price of its own below its catalog gift's", func(c *Campaign) { c.CampaignData.PriceSet = true }, 7, catalog, gifting.CodeConflict},
		{"more than a wallet can hold", func(c *Campaign) { c.CampaignData.CreditsPerRecipient = gifting.MaxCreditsPerRecipient }, wallet.MaxBalance, nil, gifting.CodeInsufficientCredits},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := draft(10)
			tt.edit(&c)
			p, err := DecideLaunch(LaunchState{OrgID: "org", Campaign: c, Contacts: tt.contacts, Gifts: tt.gifts, UserID: "u1", Now: now})
			if tt.code != "" {
				if gifting.ErrorCode(err) != tt.code {
					t.Fatalf("err = %v, want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := wallet.Change{OrgID: "org", Type: wallet.Debit, Delta: -70, CampaignID: "c1", Reason: "campaign launch: 7 contacts × 10 credits"}
			if p.Debit != want {
				t.Errorf("debit %+v, want %+v", p.Debit, want)
			}
			r := p.Record
			if r.Contacts != 7 || r.Debited != 70 || r.CreditsPerRecipient != 10 || r.Created != 0 || r.StartedBy != "u1" ||
				!r.StartedAt.Equal(now) || !r.KeyedOnly || !slices.Equal(r.ListIDs, []string{"l1"}) {
				t.Errorf("launch record %+v", r)
			}
			l := p.Launched
			if l.Status != Preparing || !l.UpdatedAt.Equal(now) || l.LastUpdatedBy != "u1" || l.LiveData.LaunchedAt == nil ||
				l.LaunchProgress == nil || l.LaunchProgress.Contacts != 7 {
				t.Errorf("launched campaign %+v", l)
			}
			if len(p.Messages) != 1 || p.Messages[0].Type != gifting.ChangeCampaignLaunched {
				t.Errorf("messages %+v, want campaign.launched", p.Messages)
			}
			if c.Status != Draft {
				t.Error("the plan changed the campaign as read")
			}
			paid := p.Paying(wallet.Plan{Before: 100, After: 30})
			a := paid.Answer
			if a.CreditsDeducted != 70 || a.RemainingBalance != 30 || a.Status != Preparing || a.Contacts != 7 || a.CreditsPerRecipient != 10 {
				t.Errorf("answer %+v", a)
			}
		})
	}
}

// TestLaunchOutcomes: the errors a user reads for what a launch met.
func TestLaunchOutcomes(t *testing.T) {
	t.Parallel()
	edited := draft(10)
	launched := draft(10)
	launched.Status = Preparing
	list := gifting.Ref{Kind: gifting.RefContactList, ID: "l1"}
	for _, tt := range []struct {
		name string
		err  error
		code gifting.Code
		msg  string
	}{
		{"a draft edited meanwhile", LaunchRaced(edited), gifting.CodeConflict, "the campaign was edited while it was being launched; launch it again"},
		{"launched meanwhile", LaunchRaced(launched), gifting.CodeConflict, "campaign is preparing; only a draft can be launched"},
		{"its launch record exists", AlreadyLaunched("c1"), gifting.CodeConflict, `campaign "c1" was already launched`},
		{"a list gone", RefMissing(gifting.NotFound("contact list", "l1"), list), gifting.CodeConflict,
			`contact list "l1" of the campaign no longer exists; update the campaign before launching`},
		{"a list unreadable", RefMissing(gifting.Unavailable(errors.New("down")), list), gifting.CodeUnavailable, ""},
		{"a gift gone", GiftsMissing(gifting.NotFound("gift", "g1")), gifting.CodeConflict, "; it was deleted: update the campaign before launching"},
	} {
		if gifting.ErrorCode(tt.err) != tt.code || !strings.Contains(gifting.ErrorMessage(tt.err), tt.msg) {
			t.Errorf("%s: %v (%s), want %s %q", tt.name, tt.err, gifting.ErrorCode(tt.err), tt.code, tt.msg)
		}
	}
}
