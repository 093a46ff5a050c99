package campaign

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

func ptr[T any](v T) *T { return &v }

// TestEditApply: every field sent replaces the campaign's, and every
// problem is named in one VALIDATION_FAILED.
func TestEditApply(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 5, 1, 9, 0, 0, 123456789, time.UTC)
	many := make([]string, MaxLists+2)
	for i := range many {
		many[i] = strings.Repeat("l", i+1)
	}
	for _, tt := range []struct {
		name     string
		e        Edit
		creating bool
		check    func(Campaign) bool
		problems []string
	}{
		{"creating needs a name", Edit{}, true, nil, []string{"name"}},
		{"a name trimmed", Edit{Name: ptr("  Spring  ")}, true, func(c Campaign) bool { return c.Name == "Spring" }, nil},
		{"a name too long", Edit{Name: ptr(strings.Repeat("n", MaxName+1))}, false, nil, []string{"name"}},
		{"a description too long", Edit{Description: ptr(strings.Repeat("d", MaxDescription+1))}, false, nil, []string{"description"}},
		{"lists of both variants, without repeats or blanks", Edit{Lists: []string{" a ", "", "b", "a"}, ListsSent: true}, false,
			func(c Campaign) bool {
				return slices.Equal(c.CampaignData.ContactListIDs, []string{"a", "b"}) && c.CampaignData.ContactListID == "a"
			}, nil},
		{"lists cleared", Edit{Lists: []string{""}, ListsSent: true}, false,
			func(c Campaign) bool {
				return len(c.CampaignData.ContactListIDs) == 0 && c.CampaignData.ContactListID == ""
			}, nil},
		{"too many lists", Edit{Lists: many, ListsSent: true}, false, nil, []string{"contactListIds"}},
		{"two different templates", Edit{TemplateID: ptr("t1"), DataTemplateID: ptr("t2")}, false, nil, []string{"templateId"}},
		{"the template of either variant", Edit{DataTemplateID: ptr(" t2 ")}, false,
			func(c Campaign) bool { return c.CampaignData.EmailTemplateID == "t2" }, nil},
		{"a schedule to the millisecond", Edit{Schedule: &Schedule{Field: "scheduledAt", At: &at}}, false,
			func(c Campaign) bool { return c.CampaignData.ScheduledAt.Equal(at.Truncate(time.Millisecond)) }, nil},
		{"a schedule cleared", Edit{Schedule: &Schedule{Field: "scheduledAt"}}, false,
			func(c Campaign) bool { return c.CampaignData.ScheduledAt == nil }, nil},
		{"a schedule not a date-time", Edit{Schedule: &Schedule{Field: "campaignData.scheduledAt", Invalid: true}}, false, nil,
			[]string{"campaignData.scheduledAt"}},
		{"gifts without repeats", Edit{GiftIDs: []string{"g1", "g1", " g2"}}, false,
			func(c Campaign) bool { return slices.Equal(c.CampaignData.GiftIDs, []string{"g1", "g2"}) }, nil},
		{"too many gifts", Edit{GiftIDs: make([]string, MaxGifts+1)}, false, nil, []string{"campaignData.giftIds"}},
		{"a price of its own", Edit{CreditsPerRecipient: ptr(int64(25))}, false,
			func(c Campaign) bool { return c.CampaignData.CreditsPerRecipient == 25 && c.CampaignData.PriceSet }, nil},
		{"a negative price", Edit{CreditsPerRecipient: ptr(int64(-1))}, false, nil, []string{"campaignData.creditsPerRecipient"}},
		{"a claim expiry", Edit{ClaimExpiresInDays: ptr(int64(7))}, false,
			func(c Campaign) bool { return c.CampaignData.ClaimExpiresInDays == 7 }, nil},
		{"a claim expiry too long", Edit{ClaimExpiresInDays: ptr(int64(gifting.MaxClaimExpiresInDays + 1))}, false, nil,
			[]string{"campaignData.claimExpiresInDays"}},
		{"creating takes the default claim expiry", Edit{Name: ptr("x")}, true,
			func(c Campaign) bool { return c.CampaignData.ClaimExpiresInDays == gifting.DefaultClaimExpiresInDays }, nil},
		{"every problem at once", Edit{Name: ptr(""), CreditsPerRecipient: ptr(int64(-1)), TemplateID: ptr("a"), DataTemplateID: ptr("b")},
			false, nil, []string{"name", "campaignData.creditsPerRecipient", "templateId"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c Campaign
			err := tt.e.Apply(&c, tt.creating)
			if len(tt.problems) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if tt.check != nil && !tt.check(c) {
					t.Errorf("applied: %+v", c)
				}
				return
			}
			var ge *gifting.Error
			if !errors.As(err, &ge) || ge.Code != gifting.CodeValidation || len(ge.Details) != len(tt.problems) {
				t.Fatalf("err = %v, want VALIDATION_FAILED naming %v", err, tt.problems)
			}
			for _, f := range tt.problems {
				if ge.Details[f] == "" {
					t.Errorf("no problem named %s in %v", f, ge.Details)
				}
			}
		})
	}
}

// TestPrice: a campaign costs its dearest gift, rounded up to whole
// credits, unless it sets its own price, which the service catalog's gifts
// floor.
func TestPrice(t *testing.T) {
	t.Parallel()
	gifts := []gifting.Gift{{GiftID: "own", Price: 80}, {GiftID: "cat", Price: 34.5, IsDelightloop: true}}
	c := Campaign{}
	if err := Price(&c, gifts); err != nil || c.CampaignData.CreditsPerRecipient != 80 {
		t.Errorf("derived price %d, %v; want 80", c.CampaignData.CreditsPerRecipient, err)
	}
	c.CampaignData = Data{CreditsPerRecipient: 35, PriceSet: true}
	if err := Price(&c, gifts); err != nil || c.CampaignData.CreditsPerRecipient != 35 {
		t.Errorf("own price at the floor: %d, %v", c.CampaignData.CreditsPerRecipient, err)
	}
	c.CampaignData.CreditsPerRecipient = 34
	var ge *gifting.Error
	if err := Price(&c, gifts); !errors.As(err, &ge) || ge.Details["campaignData.creditsPerRecipient"] == "" {
		t.Errorf("own price below the floor: %v, want VALIDATION_FAILED naming the price", err)
	}
	if err := Price(&Campaign{}, []gifting.Gift{{Price: gifting.MaxGiftPrice + 1}}); !errors.As(err, &ge) || ge.Details["campaignData.giftIds"] == "" {
		t.Errorf("a gift priced out of range: %v, want VALIDATION_FAILED naming the gifts", err)
	}
	stored := Campaign{CampaignID: "c1", CampaignData: Data{CreditsPerRecipient: -5}}
	if gifting.ErrorCode(stored.PriceOutOfBounds()) != gifting.CodeConflict || (Campaign{}).PriceOutOfBounds() != nil {
		t.Error("PriceOutOfBounds: a stored price outside the bounds takes nobody")
	}
	cheap := Campaign{CampaignData: Data{CreditsPerRecipient: 10, PriceSet: true}}
	if gifting.ErrorCode(cheap.UnderPriced(gifts)) != gifting.CodeConflict || cheap.UnderPriced(nil) != nil {
		t.Error("UnderPriced: an own price below the catalog's takes nobody")
	}
}

func TestCheckReferences(t *testing.T) {
	t.Parallel()
	c := Campaign{CampaignData: Data{EmailTemplateID: "t9"}}
	err := CheckReferences(&c, References{MissingLists: []string{"l1"}, MissingTemplate: true, GiftsErr: gifting.NotFound("gift", "g1")})
	var ge *gifting.Error
	if !errors.As(err, &ge) || ge.Code != gifting.CodeValidation || len(ge.Details) != 3 ||
		ge.Message != "The campaign refers to resources that do not exist; see details." {
		t.Fatalf("err = %v, want VALIDATION_FAILED naming the lists, template and gifts", err)
	}
	if !strings.Contains(ge.Details["templateId"], `"t9"`) {
		t.Errorf("template problem %q does not name the template", ge.Details["templateId"])
	}
	if err := CheckReferences(&c, References{Gifts: []gifting.Gift{{Price: 12}}}); err != nil || c.CampaignData.CreditsPerRecipient != 12 {
		t.Errorf("found references: %v, price %d; want priced 12", err, c.CampaignData.CreditsPerRecipient)
	}
}

func TestDecideCreate(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	in := Campaign{Name: "Spring", CreatedBy: "u1", Status: Live, TotalRecipients: 9, IsDeleted: true}
	c := DecideCreate("org", in, "id1", now)
	if c.CampaignID != "id1" || c.OrganizationID != "org" || c.Status != Draft || c.IsDeleted || c.TotalRecipients != 0 ||
		!c.CreatedAt.Equal(now) || !c.UpdatedAt.Equal(now) || c.LastUpdatedBy != "u1" ||
		len(c.LiveData.StatusCounts) != len(gifting.RecipientStatuses) || c.CampaignData.GiftIDs == nil {
		t.Errorf("new draft %+v", c)
	}
}

// TestDecideEdit: an edit of a draft's gifts or price is refused once it
// has recipients; only a changed schedule moves its place in the due
// index.
func TestDecideEdit(t *testing.T) {
	t.Parallel()
	now := time.Now()
	at, later := now.Add(time.Hour), now.Add(2*time.Hour)
	was := draft(10)
	was.CampaignData.ScheduledAt = &at
	for _, tt := range []struct {
		name                  string
		edit                  func(*Campaign)
		repriced, rescheduled bool
		refused               bool
	}{
		{"a rename", func(c *Campaign) { c.Name = "x" }, false, false, false},
		{"another price", func(c *Campaign) { c.CampaignData.CreditsPerRecipient = 20 }, true, false, false},
		{"other gifts", func(c *Campaign) { c.CampaignData.GiftIDs = []string{"g2"} }, true, false, false},
		{"another price with recipients", func(c *Campaign) { c.CampaignData.CreditsPerRecipient, c.TotalRecipients = 20, 1 }, false, false, true},
		{"a rename with recipients", func(c *Campaign) { c.Name, c.TotalRecipients = "x", 1 }, false, false, false},
		{"rescheduled", func(c *Campaign) { c.CampaignData.ScheduledAt = &later }, false, true, false},
		{"the same instant", func(c *Campaign) { same := at; c.CampaignData.ScheduledAt = &same }, false, false, false},
		{"unscheduled", func(c *Campaign) { c.CampaignData.ScheduledAt = nil }, false, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := was
			tt.edit(&c)
			p, err := DecideEdit("org", was, c, "u2", now)
			if tt.refused {
				if gifting.ErrorCode(err) != gifting.CodeConflict {
					t.Fatalf("err = %v, want CONFLICT", err)
				}
				return
			}
			if err != nil || p.Repriced != tt.repriced || p.Rescheduled != tt.rescheduled || p.UserID != "u2" || p.OrgID != "org" {
				t.Errorf("plan %+v, %v; want repriced %v, rescheduled %v", p, err, tt.repriced, tt.rescheduled)
			}
		})
	}
}
