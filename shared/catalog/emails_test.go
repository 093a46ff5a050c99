package catalog_test

import (
	"errors"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestEmailDelayBeyondTimeIsRefused: a template's delayHours too large to
// be a time (3,000,000 hours wraps time.Duration) was accepted and made a
// reminder due at once, with the invitation. Every delay a template may
// hold schedules its email that long after the recipient is added; a
// larger one is refused naming the field.
func TestEmailDelayBeyondTimeIsRefused(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		delay int
		valid bool
	}{
		{"a day", 24, true},
		{"the longest", catalog.MaxEmailDelayHours, true},
		{"one hour more", catalog.MaxEmailDelayHours + 1, false},
		{"wraps a duration", 3_000_000, false},
		{"the largest integer", int(^uint(0) >> 1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := catalog.Template{TemplateName: "Far", TemplateData: catalog.TemplateData{Emails: map[string]catalog.Email{
				"addressConfirmation": {Subject: "Hi", HTML: "<p>Hi</p>"},
				"reminder1":           {Subject: "Later", HTML: "<p>Later</p>", DelayHours: tt.delay},
			}}}
			err := catalog.CheckTemplate(&tmpl)
			if !tt.valid {
				var e *gifting.Error
				if !errors.As(err, &e) || e.Code != gifting.CodeValidation || e.Details["templateData.emails.reminder1.delayHours"] == "" {
					t.Errorf("CheckTemplate() = %v, want a VALIDATION_FAILED naming templateData.emails.reminder1.delayHours", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("CheckTemplate() = %v", err)
			}
			// The recipient's emails as add-recipient's kit reads them.
			emails := map[string]gifting.EmailTemplate{}
			for kind, e := range tmpl.TemplateData.Emails {
				emails[kind] = gifting.EmailTemplate(e)
			}
			r := gifting.NewRecipient(gifting.NewRecipientSpec{RecipientID: "r1", Contact: gifting.Contact{MailID: "jane@example.com"},
				Emails: emails, Now: now})
			want := gifting.FormatTime(now.Add(time.Duration(tt.delay) * time.Hour))
			if got := r.Emails.Reminder1.ScheduledTime; got != want {
				t.Errorf("reminder1 scheduled at %s, want %s", got, want)
			}
			if due := r.DueEmails(now); len(due) != 1 {
				t.Errorf("emails due when added: %v, want the invitation alone", due)
			}
		})
	}
}
