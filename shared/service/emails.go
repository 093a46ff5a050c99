package service

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
)

// runRecipientEmails is the job of a recipient that is due (the scheduler
// runs it from the due index): the recipient slice's RunEmails expires it
// or sends its emails due now.
func (s *Service) runRecipientEmails(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	campaignID, recipientID, ok := gifting.SplitRecipientRef(j.Ref)
	if !ok {
		return nil, fmt.Errorf("recipient emails job: malformed reference %q", j.Ref)
	}
	return nil, s.recipients.RunEmails(ctx, j.OrgID, campaignID, recipientID)
}

// HandleMailEvents applies the bounce and complaint notifications of an
// SNS delivery from the mail-events topic (mail.ParseSNSEvent) through the
// recipient slice's MailFeedback: a hard bounce or a complaint stops the
// recipient's emails and suppresses the address. An error fails the
// invocation and SNS retries it; every step is idempotent.
func (s *Service) HandleMailEvents(ctx context.Context, ev events.SNSEvent) error {
	fs, err := mail.ParseSNSEvent(ev)
	if err != nil {
		return err
	}
	return s.recipients.MailFeedback(ctx, fs)
}
