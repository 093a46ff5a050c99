package dynamo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
)

// TestMarkPageOnce: each page mark is recorded once with its one message;
// a second MarkPage is ErrAlreadyMarked and writes no second message, and
// so is one after the recipient was rewritten (a claim), whose write
// keeps the mark beside the record.
func TestMarkPageOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "marks", 100)
	c := giftCampaign(t, s, orgID, 10)
	res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recipient
	count := func(typ string) int {
		n := 0
		for _, rec := range testenv.ChangeRecords(t, s, orgID) {
			for _, m := range rec.Messages {
				if ref, ok := m.Data.(webhook.RecipientRef); ok && m.Type == typ && ref.RecipientID == r.RecipientID {
					n++
				}
			}
		}
		return n
	}
	for _, f := range []struct {
		field recipient.MarkField
		typ   string
	}{{recipient.MarkViewed, gifting.ChangeRecipientViewed}, {recipient.MarkMeetingClicked, gifting.ChangeRecipientMeetingClicked}} {
		m, ok := recipient.DecideMark(r, f.field, s.Now())
		if !ok {
			t.Fatalf("%s: nothing to mark on a new recipient", f.field)
		}
		if err := s.MarkPage(ctx, m); err != nil {
			t.Fatalf("%s: %v", f.field, err)
		}
		if err := s.MarkPage(ctx, m); !errors.Is(err, recipient.ErrAlreadyMarked) {
			t.Errorf("%s again: %v, want ErrAlreadyMarked", f.field, err)
		}
		if n := count(f.typ); n != 1 {
			t.Errorf("%d %s messages, want 1", n, f.typ)
		}
	}
	got, err := s.Recipient(ctx, orgID, c.CampaignID, r.RecipientID)
	if err != nil || got.ViewedAt == nil || got.MeetingClickedAt == nil {
		t.Fatalf("recipient after the marks: %v, viewedAt %v, meetingClickedAt %v", err, got.ViewedAt, got.MeetingClickedAt)
	}
	claimed := testenv.Claim(t, s, orgID, c.CampaignID, r.RecipientID)
	if claimed.MeetingClickedAt == nil || !claimed.MeetingClickedAt.Equal(*got.MeetingClickedAt) {
		t.Errorf("the claim's rewrite lost meetingClickedAt: %v", claimed.MeetingClickedAt)
	}
	for _, field := range []recipient.MarkField{recipient.MarkViewed, recipient.MarkMeetingClicked} {
		m, _ := recipient.DecideMark(r, field, s.Now()) // as decided from a read before the marks
		if err := s.MarkPage(ctx, m); !errors.Is(err, recipient.ErrAlreadyMarked) {
			t.Errorf("%s after the rewrite: %v, want ErrAlreadyMarked", field, err)
		}
	}
	if a, b := count(gifting.ChangeRecipientViewed), count(gifting.ChangeRecipientMeetingClicked); a != 1 || b != 1 {
		t.Errorf("after the rewrite: %d recipient.viewed and %d recipient.meeting_link_clicked messages, want 1 each", a, b)
	}
}
