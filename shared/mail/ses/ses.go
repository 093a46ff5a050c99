// Package ses is the Mailer on Amazon SES v2 (shared/mail). Only the
// functions that send email import it: the SES client it links costs every
// binary that imports it a few hundred kilobytes.
package ses

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math/rand/v2"
	netmail "net/mail"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/giftcampaign/service/shared/mail"
)

// SendEmailAPI is the part of the SES v2 client that SES uses.
type SendEmailAPI interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

var _ SendEmailAPI = (*sesv2.Client)(nil)

// Config says how SES sends.
type Config struct {
	// From is the sender address, an identity verified in SES.
	From string
	// ConfigurationSet, when set, is the SES configuration set every
	// message names, whose event destination publishes bounces and
	// complaints.
	ConfigurationSet string
	// PublicBaseURL is the base of unsubscribe links, e.g.
	// https://gifts.example.com.
	PublicBaseURL string
	// MaxAttempts bounds the sends of one message when SES throttles or
	// fails; 0 means 5.
	MaxAttempts int
	// Backoff is the longest wait before the first retry, doubling for
	// each later one up to 20 times as long; 0 means 200ms.
	Backoff time.Duration
}

// Mailer is the mail.Mailer on Amazon SES v2 (and on its local emulator, which
// speaks the same API).
type Mailer struct {
	client SendEmailAPI
	cfg    Config
}

var _ mail.Mailer = (*Mailer)(nil)

// New returns the SES mailer sending through client as cfg says.
func New(client SendEmailAPI, cfg Config) *Mailer {
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 5
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 200 * time.Millisecond
	}
	cfg.PublicBaseURL = strings.TrimRight(cfg.PublicBaseURL, "/")
	return &Mailer{client: client, cfg: cfg}
}

// permanent maps the SES error codes that no retry can fix to reasons.
var permanent = map[string]string{
	"MessageRejected":                    mail.ReasonMessageRejected,
	"MailFromDomainNotVerifiedException": mail.ReasonSenderNotVerified,
	"AccountSuspendedException":          mail.ReasonAccountSuspended,
	"SendingPausedException":             mail.ReasonSendingPaused,
	"NotFoundException":                  mail.ReasonNotFound,
	"BadRequestException":                mail.ReasonBadRequest,
}

// retryable lists the SES error codes of throttling and of SES's own
// failures, which a later attempt may get past.
var retryable = map[string]bool{
	"TooManyRequestsException":      true,
	"LimitExceededException":        true,
	"InternalServiceErrorException": true,
	"ThrottlingException":           true,
	"Throttling":                    true,
}

// SendEmail sends m as one SES v2 SendEmail call, HTML and plain text,
// with the configuration set when there is one and, when m has an
// unsubscribe token, a one-click List-Unsubscribe header and a link at the
// foot of both parts. Throttling, SES's 5xx failures and lost connections
// are retried with jittered exponential backoff, up to MaxAttempts sends;
// a refusal that no retry can fix returns at once as *mail.Rejected. Errors
// carry SES's error code, never an address.
func (s *Mailer) SendEmail(ctx context.Context, m mail.Message) (mail.Sent, error) {
	in := s.input(m)
	// The retries are ours, so that the SDK's own do not multiply them.
	noSDKRetry := func(o *sesv2.Options) { o.Retryer = aws.NopRetryer{} }
	for attempt := 1; ; attempt++ {
		out, err := s.client.SendEmail(ctx, in, noSDKRetry)
		if err == nil {
			return mail.Sent{MessageID: aws.ToString(out.MessageId)}, nil
		}
		code := errorCode(err)
		if reason, ok := permanent[code]; ok {
			return mail.Sent{}, &mail.Rejected{Reason: reason, Code: code}
		}
		if !isRetryable(err, code) || attempt == s.cfg.MaxAttempts {
			return mail.Sent{}, &sendError{code: code, attempts: attempt, err: err}
		}
		if err := sleep(ctx, s.backoff(attempt)); err != nil {
			return mail.Sent{}, &sendError{code: code, attempts: attempt, err: err}
		}
	}
}

// input builds the SendEmail request of m.
func (s *Mailer) input(m mail.Message) *sesv2.SendEmailInput {
	htmlBody, text := m.HTML, m.Text
	if text == "" {
		text = mail.PlainText(m.HTML)
	}
	var headers []types.MessageHeader
	if m.UnsubscribeToken != "" {
		link := s.cfg.PublicBaseURL + "/unsubscribe/" + url.PathEscape(m.UnsubscribeToken)
		// RFC 8058: a mail client unsubscribes with one POST to the link,
		// without opening a page.
		headers = []types.MessageHeader{
			{Name: aws.String("List-Unsubscribe"), Value: aws.String("<" + link + ">")},
			{Name: aws.String("List-Unsubscribe-Post"), Value: aws.String("List-Unsubscribe=One-Click")},
		}
		footer, label := `<a href="`+html.EscapeString(link)+`">Unsubscribe</a> from these emails.`, "Unsubscribe from these emails"
		if m.UnsubscribeLabel != "" {
			footer, label = `<a href="`+html.EscapeString(link)+`">`+html.EscapeString(m.UnsubscribeLabel)+`</a>`, m.UnsubscribeLabel
		}
		htmlBody = withFooter(htmlBody, `<p style="font-size:12px;color:#666">`+footer+`</p>`)
		text = strings.TrimRight(text, "\n") + "\n\n" + label + ": " + link + "\n"
	}
	utf8 := aws.String("UTF-8")
	from := s.cfg.From
	if m.FromName != "" {
		// net/mail quotes the name and encodes it (RFC 2047) when it is
		// not plain ASCII, so a name cannot break the header.
		from = (&netmail.Address{Name: m.FromName, Address: s.cfg.From}).String()
	}
	in := &sesv2.SendEmailInput{
		FromEmailAddress: aws.String(from),
		Destination:      &types.Destination{ToAddresses: []string{m.To}},
		Content: &types.EmailContent{Simple: &types.Message{
			Subject: &types.Content{Data: aws.String(m.Subject), Charset: utf8},
			Body: &types.Body{
				Html: &types.Content{Data: aws.String(htmlBody), Charset: utf8},
				Text: &types.Content{Data: aws.String(text), Charset: utf8},
			},
			Headers: headers,
		}},
	}
	if m.ReplyTo != "" {
		in.ReplyToAddresses = []string{m.ReplyTo}
	}
	if s.cfg.ConfigurationSet != "" {
		in.ConfigurationSetName = aws.String(s.cfg.ConfigurationSet)
	}
	if m.Kind != "" {
		// Tags come back on SES's events, so a bounce says which email it was.
		in.EmailTags = []types.MessageTag{{Name: aws.String("kind"), Value: aws.String(m.Kind)}}
	}
	return in
}

// withFooter puts footer at the end of an HTML document's body, or at the
// end of a fragment.
func withFooter(doc, footer string) string {
	if i := strings.LastIndex(strings.ToLower(doc), "</body>"); i >= 0 {
		return doc[:i] + footer + doc[i:]
	}
	return doc + footer
}

// backoff is the wait before retry n (n ≥ 1): a random time up to
// Backoff·2^(n-1), capped at 20·Backoff ("full jitter", so that senders
// throttled together do not retry together).
func (s *Mailer) backoff(n int) time.Duration {
	ceiling := min(s.cfg.Backoff<<(n-1), 20*s.cfg.Backoff)
	return time.Duration(rand.Int64N(int64(ceiling))) + 1
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// errorCode is the SES error code of err, or "" when SES did not answer
// with one.
func errorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// isRetryable reports whether a later attempt may succeed: throttling, an
// HTTP 5xx, or a request that never got an answer.
func isRetryable(err error, code string) bool {
	if retryable[code] {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var respErr *awshttp.ResponseError
	if errors.As(err, &respErr) {
		return respErr.HTTPStatusCode() >= 500
	}
	var sendErr *smithyhttp.RequestSendError
	return errors.As(err, &sendErr)
}

// sendError is a send that failed for a reason other than a rejection.
// Its text names SES's error code only; the SDK's message can quote
// addresses.
type sendError struct {
	code     string
	attempts int
	err      error
}

func (e *sendError) Error() string {
	what := e.code
	if what == "" {
		what = "no answer"
		if errors.Is(e.err, context.Canceled) || errors.Is(e.err, context.DeadlineExceeded) {
			what = "cancelled"
		}
	}
	return fmt.Sprintf("SES SendEmail failed after %d attempt(s): %s", e.attempts, what)
}

func (e *sendError) Unwrap() error { return e.err }
