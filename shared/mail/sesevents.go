package mail

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Feedback kinds: what happened to an address.
const (
	// Bounced: the receiving server refused the email.
	Bounced = "bounced"
	// Complained: the recipient marked the email as spam.
	Complained = "complained"
)

// Feedback is one address that SES reports as bounced or complained about.
type Feedback struct {
	// Email is the address, as SES reports it.
	Email string
	// Kind is Bounced or Complained.
	Kind string
	// Permanent is true for a hard bounce (bounceType Permanent): the
	// address does not exist or will never accept mail. Transient and
	// undetermined bounces may go through later.
	Permanent bool
	// MessageID is SES's id of the email (Sent.MessageID).
	MessageID string
	// EmailKind is the schedule entry the email was (the "kind" tag that
	// SES.SendEmail sets), when SES published tags.
	EmailKind string
	// At is when the bounce or complaint happened.
	At time.Time
}

// Suppresses reports whether the address must never be mailed again: a
// permanent bounce or a complaint. A transient bounce does not suppress.
func (f Feedback) Suppresses() bool {
	return f.Kind == Complained || f.Permanent
}

// sesEvent is the part of an SES event record (event publishing through a
// configuration set, field eventType) or feedback notification (directly
// on the identity, field notificationType) that suppression needs.
type sesEvent struct {
	EventType        string `json:"eventType"`
	NotificationType string `json:"notificationType"`
	Mail             struct {
		MessageID string              `json:"messageId"`
		Tags      map[string][]string `json:"tags"`
	} `json:"mail"`
	Bounce *struct {
		BounceType        string      `json:"bounceType"`
		BouncedRecipients []recipient `json:"bouncedRecipients"`
		Timestamp         time.Time   `json:"timestamp"`
	} `json:"bounce"`
	Complaint *struct {
		ComplainedRecipients []recipient `json:"complainedRecipients"`
		Timestamp            time.Time   `json:"timestamp"`
	} `json:"complaint"`
}

type recipient struct {
	EmailAddress string `json:"emailAddress"`
}

// ParseSNSEvent reads the SES events that an SNS topic delivered to a Lambda
// function and returns the bounced and complained addresses, in order.
// Other events (Send, Delivery, Reject, Open, Click, DeliveryDelay …) affect
// no address and yield nothing. A record whose message is not an SES event
// is an error naming the record, never its content.
func ParseSNSEvent(e events.SNSEvent) ([]Feedback, error) {
	var out []Feedback
	for i, r := range e.Records {
		fb, err := ParseSESEvent([]byte(r.SNS.Message))
		if err != nil {
			return nil, fmt.Errorf("SNS record %d (message %s): %w", i, r.SNS.MessageID, err)
		}
		out = append(out, fb...)
	}
	return out, nil
}

// ParseSESEvent reads one SES event record or feedback notification (the
// JSON of an SNS message) and returns the addresses it reports as bounced
// or complained.
func ParseSESEvent(message []byte) ([]Feedback, error) {
	var ev sesEvent
	if err := json.Unmarshal(message, &ev); err != nil {
		return nil, fmt.Errorf("not an SES event: %w", err)
	}
	typ := ev.EventType
	if typ == "" {
		typ = ev.NotificationType
	}
	if typ == "" {
		return nil, fmt.Errorf("not an SES event: no eventType or notificationType")
	}
	var emailKind string
	if k := ev.Mail.Tags["kind"]; len(k) > 0 {
		emailKind = k[0]
	}
	feedback := func(email, kind string, permanent bool, at time.Time) Feedback {
		return Feedback{Email: email, Kind: kind, Permanent: permanent, MessageID: ev.Mail.MessageID, EmailKind: emailKind, At: at}
	}
	var out []Feedback
	switch typ {
	case "Bounce":
		if ev.Bounce == nil {
			return nil, fmt.Errorf("a Bounce event without its bounce object")
		}
		permanent := ev.Bounce.BounceType == "Permanent"
		for _, r := range ev.Bounce.BouncedRecipients {
			out = append(out, feedback(r.EmailAddress, Bounced, permanent, ev.Bounce.Timestamp))
		}
	case "Complaint":
		if ev.Complaint == nil {
			return nil, fmt.Errorf("a Complaint event without its complaint object")
		}
		for _, r := range ev.Complaint.ComplainedRecipients {
			out = append(out, feedback(r.EmailAddress, Complained, false, ev.Complaint.Timestamp))
		}
	}
	return out, nil
}
