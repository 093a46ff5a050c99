package mail

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// snsEvent reads an SNS event under testdata, as Lambda hands it to a function.
func snsEvent(t *testing.T, name string) events.SNSEvent {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var e events.SNSEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

func at(t *testing.T, s string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestParseSNSEvent(t *testing.T) {
	tests := []struct {
		fixture        string
		want           []Feedback
		wantSuppressed []string
	}{
		{
			fixture: "sns-bounce-permanent.json",
			want: []Feedback{
				{Email: "Jane.Doe@example.com", Kind: Bounced, Permanent: true, MessageID: "0100018e-msg-bounce-000000", EmailKind: "addressConfirmation", At: at(t, "2026-03-02T10:00:05.12Z")},
				{Email: "gone@example.org", Kind: Bounced, Permanent: true, MessageID: "0100018e-msg-bounce-000000", EmailKind: "addressConfirmation", At: at(t, "2026-03-02T10:00:05.12Z")},
			},
			wantSuppressed: []string{"Jane.Doe@example.com", "gone@example.org"},
		},
		{
			fixture: "sns-bounce-transient.json",
			want:    []Feedback{{Email: "full@example.com", Kind: Bounced, MessageID: "0100018e-msg-transient-000000", EmailKind: "addressConfirmation", At: at(t, "2026-03-02T11:00:05Z")}},
		},
		{
			fixture:        "sns-complaint.json",
			want:           []Feedback{{Email: "angry@example.com", Kind: Complained, MessageID: "0100018e-msg-complaint-000000", EmailKind: "addressConfirmation", At: at(t, "2026-03-02T12:30:00Z")}},
			wantSuppressed: []string{"angry@example.com"},
		},
		{
			fixture:        "sns-notification-bounce.json",
			want:           []Feedback{{Email: "listed@example.com", Kind: Bounced, Permanent: true, MessageID: "0100018e-msg-notification-000000", At: at(t, "2026-03-03T09:00:00Z")}},
			wantSuppressed: []string{"listed@example.com"},
		},
		{fixture: "sns-delivery.json"},
		{fixture: "sns-send.json"},
		{fixture: "sns-reject.json"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.fixture, ".json"), func(t *testing.T) {
			got, err := ParseSNSEvent(snsEvent(t, tt.fixture))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d feedbacks %+v; want %+v", len(got), got, tt.want)
			}
			var suppressed []string
			for i := range got {
				if !got[i].At.Equal(tt.want[i].At) {
					t.Errorf("feedback %d at %s; want %s", i, got[i].At, tt.want[i].At)
				}
				got[i].At = tt.want[i].At
				if got[i] != tt.want[i] {
					t.Errorf("feedback %d = %+v; want %+v", i, got[i], tt.want[i])
				}
				if got[i].Suppresses() {
					suppressed = append(suppressed, got[i].Email)
				}
			}
			if !slices.Equal(suppressed, tt.wantSuppressed) {
				t.Errorf("suppressed %v; want %v", suppressed, tt.wantSuppressed)
			}
		})
	}
}

func TestParseSNSEventRejectsOtherMessages(t *testing.T) {
	tests := []struct {
		name, message string
	}{
		{name: "not JSON", message: "hello"},
		{name: "no event type", message: `{"mail":{"messageId":"m"}}`},
		{name: "bounce without its object", message: `{"eventType":"Bounce","mail":{"messageId":"m"}}`},
		{name: "complaint without its object", message: `{"notificationType":"Complaint","mail":{"messageId":"m"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := snsEvent(t, "sns-delivery.json")
			e.Records[0].SNS.Message = tt.message
			if got, err := ParseSNSEvent(e); err == nil {
				t.Fatalf("ParseSNSEvent = %+v; want an error", got)
			}
		})
	}
}
