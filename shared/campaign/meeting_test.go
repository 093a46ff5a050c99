package campaign

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestEditMeeting(t *testing.T) {
	var c Campaign
	err := Edit{Name: ptr("Q4"), Meeting: &gifting.Meeting{URL: "http://calendly.com/ada"}}.Apply(&c, true)
	if gifting.ErrorCode(err) != gifting.CodeValidation || err.(*gifting.Error).Details["campaignData.meeting.url"] == "" {
		t.Fatalf("an http meeting link: %v, want VALIDATION_FAILED naming campaignData.meeting.url", err)
	}
	if err := (Edit{Name: ptr("Q4"), Meeting: &gifting.Meeting{URL: " https://cal.com/ada ", Required: true}}).Apply(&c, true); err != nil {
		t.Fatal(err)
	}
	if m := c.CampaignData.Meeting; m == nil || m.URL != "https://cal.com/ada" || !m.Required {
		t.Fatalf("meeting %+v", m)
	}
	if err := (Edit{Description: ptr("kept")}).Apply(&c, false); err != nil || c.CampaignData.Meeting == nil {
		t.Errorf("an edit without the meeting took it away: %v", err)
	}
	if err := (Edit{Meeting: &gifting.Meeting{}}).Apply(&c, false); err != nil || c.CampaignData.Meeting != nil {
		t.Errorf("an empty url must take the meeting away: %v %+v", err, c.CampaignData.Meeting)
	}
}

// TestTemplateMeeting: a campaign keeps its template's meeting link as its
// references were read, and its own wins on its recipients' pages.
func TestTemplateMeeting(t *testing.T) {
	tmpl := &gifting.Meeting{URL: "https://cal.com/team", Required: true}
	c := Campaign{CampaignData: Data{EmailTemplateID: "t1", CreditsPerRecipient: 10, PriceSet: true}}
	if err := CheckReferences(&c, References{TemplateMeeting: tmpl}); err != nil {
		t.Fatal(err)
	}
	if got := c.ForRecipients().Meeting; got == nil || *got != *tmpl {
		t.Fatalf("recipients' meeting %+v, want the template's", got)
	}
	own := &gifting.Meeting{URL: "https://cal.com/ada"}
	c.CampaignData.Meeting = own
	if got := c.ForRecipients().Meeting; got == nil || *got != *own {
		t.Errorf("recipients' meeting %+v, want the campaign's own", got)
	}
	if err := CheckReferences(&c, References{}); err != nil || c.ForRecipients().Meeting == nil || c.CampaignData.TemplateMeeting != nil {
		t.Errorf("a template without a link: %v, template copy %+v", err, c.CampaignData.TemplateMeeting)
	}
}
