package ses_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/mail/ses"
)

// emulatorMailer returns an SES mailer on the test run's SES emulator.
func emulatorMailer(t *testing.T, configurationSet string) (*ses.Mailer, string) {
	t.Helper()
	endpoint := localstack.SESEndpoint(t)
	client, err := sesmail.NewClient(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return ses.New(client, ses.Config{
		From: "gifts@example.com", ConfigurationSet: configurationSet, PublicBaseURL: "https://gifts.test/",
	}), endpoint
}

// received returns the email the emulator holds with id, failing the test when there is none.
func received(t *testing.T, endpoint, id string) localstack.Email {
	t.Helper()
	for _, e := range localstack.ReadEmails(t, endpoint) {
		if e.MessageID == id {
			return e
		}
	}
	t.Fatalf("the SES emulator has no email %q", id)
	return localstack.Email{}
}

func TestSESSendsThroughTheEmulator(t *testing.T) {
	t.Parallel()
	m, endpoint := emulatorMailer(t, "gift-events")
	to := strings.ToLower(gifting.NewID()) + "@example.com"
	html := `<html><head><style>p{}</style></head><body><p>Hello Jane,</p><p><a href="https://gifts.test/l/abc">Confirm your address</a></p></body></html>`

	tests := []struct {
		name      string
		msg       mail.Message
		wantText  []string
		wantLink  bool
		wantNoStr string
	}{
		{
			name:     "html with unsubscribe link",
			msg:      mail.Message{To: to, Subject: "Your gift — confirm", HTML: html, UnsubscribeToken: "tok/1", Kind: "addressConfirmation"},
			wantText: []string{"Hello Jane,", "Confirm your address (https://gifts.test/l/abc)", "Unsubscribe from these emails: https://gifts.test/unsubscribe/tok%2F1"},
			wantLink: true,
		},
		{
			name:      "template's own text, no token",
			msg:       mail.Message{To: to, Subject: "Reminder", HTML: html, Text: "Hello Jane, the template's text."},
			wantText:  []string{"Hello Jane, the template's text."},
			wantNoStr: "Unsubscribe",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sent, err := m.SendEmail(t.Context(), tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if sent.MessageID == "" {
				t.Fatal("SendEmail returned no message id")
			}
			got := received(t, endpoint, sent.MessageID)
			if got.From != "gifts@example.com" || len(got.Destination.To) != 1 || got.Destination.To[0] != to || got.Subject != tt.msg.Subject {
				t.Errorf("got from %q to %v subject %q; want gifts@example.com → %s, %q", got.From, got.Destination.To, got.Subject, to, tt.msg.Subject)
			}
			if !strings.Contains(got.Body.HTML, `<a href="https://gifts.test/l/abc">`) {
				t.Errorf("HTML part lost the template's link: %q", got.Body.HTML)
			}
			for _, want := range tt.wantText {
				if !strings.Contains(got.Body.Text, want) {
					t.Errorf("text part %q does not contain %q", got.Body.Text, want)
				}
			}
			if strings.Contains(got.Body.Text, "p{}") {
				t.Errorf("text part shows the style sheet: %q", got.Body.Text)
			}
			unsubscribe, post := got.Header("List-Unsubscribe"), got.Header("List-Unsubscribe-Post")
			if tt.wantLink {
				if unsubscribe != "<https://gifts.test/unsubscribe/tok%2F1>" || post != "List-Unsubscribe=One-Click" {
					t.Errorf("headers List-Unsubscribe %q, List-Unsubscribe-Post %q; want the one-click link", unsubscribe, post)
				}
				if !strings.Contains(got.Body.HTML, `href="https://gifts.test/unsubscribe/tok%2F1"`) ||
					!strings.HasSuffix(got.Body.HTML, "</body></html>") {
					t.Errorf("HTML part has no unsubscribe link inside its body: %q", got.Body.HTML)
				}
			} else if unsubscribe != "" || strings.Contains(got.Body.HTML+got.Body.Text, tt.wantNoStr) {
				t.Errorf("a message without a token got an unsubscribe link: header %q, body %q", unsubscribe, got.Body.HTML)
			}
		})
	}
}

// TestSESSendsTheOrganizationsNameAndReplyTo: a message's From name goes
// on the From line with the verified address (quoted, and encoded when not
// ASCII), and its reply-to address is the message's Reply-To.
func TestSESSendsTheOrganizationsNameAndReplyTo(t *testing.T) {
	t.Parallel()
	m, endpoint := emulatorMailer(t, "")
	to := strings.ToLower(gifting.NewID()) + "@example.com"
	for name, want := range map[string]string{
		"Ada at Acme, Inc.": `"Ada at Acme, Inc." <gifts@example.com>`,
		"Zoë Müller":        `=?utf-8?q?Zo=C3=AB_M=C3=BCller?= <gifts@example.com>`,
	} {
		sent, err := m.SendEmail(t.Context(), mail.Message{To: to, Subject: "Hi", HTML: "<p>Hi</p>", FromName: name, ReplyTo: "ada@acme.test"})
		if err != nil {
			t.Fatal(err)
		}
		got := received(t, endpoint, sent.MessageID)
		if got.From != want || len(got.ReplyTo) != 1 || got.ReplyTo[0] != "ada@acme.test" {
			t.Errorf("from %q reply-to %v; want %s and ada@acme.test", got.From, got.ReplyTo, want)
		}
	}
}

// fakeSES answers SendEmail with the scripted errors in turn, then succeeds; it stands in for faults the
// emulator cannot produce (throttling, SES's own failures, rejections).
type fakeSES struct {
	mu     sync.Mutex
	errs   []error
	inputs []*sesv2.SendEmailInput
}

func (f *fakeSES) SendEmail(_ context.Context, in *sesv2.SendEmailInput, _ ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, in)
	if len(f.errs) > 0 {
		err := f.errs[0]
		f.errs = f.errs[1:]
		return nil, err
	}
	return &sesv2.SendEmailOutput{MessageId: aws.String("msg-1")}, nil
}

// httpError is an SDK error of an HTTP status without an SES error code.
func httpError(status int) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      errors.New("upstream failure"),
	}}
}

func TestSESRetriesAndRejections(t *testing.T) {
	t.Parallel()
	throttled := &types.TooManyRequestsException{Message: aws.String("Maximum sending rate exceeded.")}
	// SES's message can quote addresses; the error must not.
	rejected := &types.MessageRejected{Message: aws.String("Email address is not verified: jane@example.com")}
	tests := []struct {
		name       string
		errs       []error
		wantCalls  int
		wantID     string
		wantReason string // a *mail.Rejected with this reason
		wantFailed bool   // a plain error after the retries
	}{
		{name: "throttled then sent", errs: []error{throttled, throttled}, wantCalls: 3, wantID: "msg-1"},
		{name: "daily quota then sent", errs: []error{&types.LimitExceededException{}}, wantCalls: 2, wantID: "msg-1"},
		{name: "5xx then sent", errs: []error{&types.InternalServiceErrorException{}, httpError(503)}, wantCalls: 3, wantID: "msg-1"},
		{name: "lost connection then sent", errs: []error{&smithyhttp.RequestSendError{Err: errors.New("connection reset")}}, wantCalls: 2, wantID: "msg-1"},
		{name: "throttled every time", errs: []error{throttled, throttled, throttled, throttled}, wantCalls: 3, wantFailed: true},
		{name: "message rejected", errs: []error{rejected}, wantCalls: 1, wantReason: mail.ReasonMessageRejected},
		{name: "sender domain not verified", errs: []error{&types.MailFromDomainNotVerifiedException{}}, wantCalls: 1, wantReason: mail.ReasonSenderNotVerified},
		{name: "account suspended", errs: []error{&types.AccountSuspendedException{}}, wantCalls: 1, wantReason: mail.ReasonAccountSuspended},
		{name: "sending paused", errs: []error{&types.SendingPausedException{}}, wantCalls: 1, wantReason: mail.ReasonSendingPaused},
		{name: "configuration set not found", errs: []error{&types.NotFoundException{}}, wantCalls: 1, wantReason: mail.ReasonNotFound},
		{name: "bad request", errs: []error{&types.BadRequestException{}}, wantCalls: 1, wantReason: mail.ReasonBadRequest},
		{name: "other 4xx is not retried", errs: []error{httpError(403)}, wantCalls: 1, wantFailed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fake := &fakeSES{errs: tt.errs}
			m := ses.New(fake, ses.Config{From: "gifts@example.com", MaxAttempts: 3, Backoff: time.Millisecond})
			sent, err := m.SendEmail(t.Context(), mail.Message{To: "jane@example.com", Subject: "s", HTML: "<p>hi</p>"})
			if len(fake.inputs) != tt.wantCalls {
				t.Errorf("SendEmail called %d times; want %d", len(fake.inputs), tt.wantCalls)
			}
			var rej *mail.Rejected
			switch {
			case tt.wantReason != "":
				if !errors.As(err, &rej) || rej.Reason != tt.wantReason {
					t.Fatalf("err = %v; want *mail.Rejected with reason %s", err, tt.wantReason)
				}
			case tt.wantFailed:
				if err == nil || errors.As(err, &rej) {
					t.Fatalf("err = %v; want a failure that is not a rejection", err)
				}
			default:
				if err != nil || sent.MessageID != tt.wantID {
					t.Fatalf("SendEmail = %+v, %v; want message %s", sent, err, tt.wantID)
				}
			}
			if err != nil && strings.Contains(err.Error(), "jane@example.com") {
				t.Errorf("error %q quotes the address", err)
			}
		})
	}
}

func TestSESStopsRetryingWhenCancelled(t *testing.T) {
	t.Parallel()
	throttled := &types.TooManyRequestsException{}
	fake := &fakeSES{errs: []error{throttled, throttled, throttled}}
	m := ses.New(fake, ses.Config{From: "gifts@example.com", MaxAttempts: 5, Backoff: time.Hour})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.SendEmail(ctx, mail.Message{To: "jane@example.com", Subject: "s", HTML: "<p>hi</p>"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("SendEmail = %v after %s; want the deadline, promptly", err, time.Since(start))
	}
}

func TestSESNamesTheConfigurationSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, set string
	}{
		{name: "configured", set: "gift-events"},
		{name: "none", set: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := &fakeSES{}
			m := ses.New(fake, ses.Config{From: "gifts@example.com", ConfigurationSet: tt.set})
			if _, err := m.SendEmail(t.Context(), mail.Message{To: "jane@example.com", Subject: "s", HTML: "<p>hi</p>", Kind: "reminder1"}); err != nil {
				t.Fatal(err)
			}
			in := fake.inputs[0]
			if got := aws.ToString(in.ConfigurationSetName); got != tt.set {
				t.Errorf("ConfigurationSetName = %q; want %q", got, tt.set)
			}
			if len(in.EmailTags) != 1 || aws.ToString(in.EmailTags[0].Value) != "reminder1" {
				t.Errorf("EmailTags = %+v; want kind=reminder1, so SES events say which email bounced", in.EmailTags)
			}
		})
	}
}
