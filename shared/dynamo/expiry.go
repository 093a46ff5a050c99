package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// A recipient's claim expiry is one more due time of the recipient item:
// while it is unclaimed, recipientItem puts it in the due index at the
// earliest of its next email and its ClaimExpiresAt
// (recipient.Recipient.NextDue), and the recipient's job
// (gifting.JobRecipientEmails) expires it when the time has come. So
// finding what expires costs nothing beyond the tick's due-index reads,
// and an expiry is one read and one transaction (shared/recipient
// decides: DecideExpiry; its App retries).

// CommitExpiry writes p in one transaction (recipient.ClaimStore): the
// recipient (conditioned on the version read, so of an expiry and a claim
// racing exactly one wins) with its recipient.status_changed change
// record, the counters of its campaign's item (the archived copy with
// p.Archived) and, with p.Wallet, the refund with its ledger entry through
// the wallet's commitPlan.
func (s *Store) CommitExpiry(ctx context.Context, p recipient.ExpiryPlan) error {
	it, err := s.recipientItem(p.OrgID, p.Recipient)
	if err != nil {
		return err
	}
	sk := campaignSK(p.Recipient.CampaignID)
	if p.Archived {
		sk = deletedCampaignSK(p.Recipient.CampaignID)
	}
	var tx txn
	tx.add(condRecipient, types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("ver = :ver"),
		ExpressionAttributeValues: item{":ver": num(p.Before)},
	}})
	tx.add(condCampaign, s.campaignExpiry(p.OrgID, sk, p.From, p.Recipient.Status, p.Refund))
	changes := append([]gifting.Change{p.Message}, p.More...)
	// The month's report counts the expiry (or decline) when it happens.
	events := campaign.MoveEvents(p.From, p.Recipient.Status, 1)
	if p.Wallet != nil {
		return s.commitPlan(ctx, *p.Wallet, planWrites{items: tx.items, changes: changes, events: events,
			cancelled: func(reasons []types.CancellationReason) error { return expiryCancelled(&tx, reasons) }})
	}
	change, err := s.changePut(p.OrgID, changes...)
	if err != nil {
		return err
	}
	if err = s.transactRetrying(ctx, append(append(tx.items, change), s.eventsAdd(p.OrgID, events)...)); err != nil {
		if mapped := expiryCancelled(&tx, cancellationReasons(err)); mapped != nil {
			return mapped
		}
		return fmt.Errorf("expire recipient: %w", err)
	}
	return nil
}

// expiryCancelled maps a cancelled expiry to the recipient slice's
// outcome, nil when not understood: the recipient changed since read (a
// claim), the campaign's item missing.
func expiryCancelled(tx *txn, reasons []types.CancellationReason) error {
	switch {
	case tx.failed(reasons, condRecipient):
		return recipient.ErrRecipientChanged
	case tx.failed(reasons, condCampaign):
		return recipient.ErrCampaignMissing
	}
	return nil
}

// campaignExpiry is the transaction item that moves one recipient from
// status from to to (expired or declined) in the counters of its campaign, the item at sort
// key sk (campaignSK, or deletedCampaignSK for a deleted campaign), and
// takes refund off its creditsSpent. It is conditioned on that item
// existing, whatever its state (a completed campaign expires its
// unclaimed recipients); the expired and declined counts may be missing
// on a campaign created before the status existed.
func (s *Store) campaignExpiry(orgID, sk string, from, to gifting.RecipientStatus, refund int64) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table,
		Key:       key(orgPK(orgID), sk),
		UpdateExpression: aws.String("SET liveData.statusCounts.#from = liveData.statusCounts.#from - :one, " +
			"liveData.statusCounts.#to = if_not_exists(liveData.statusCounts.#to, :zero) + :one, " +
			"liveData.creditsSpent = liveData.creditsSpent - :refund, " + refundedExpr),
		ConditionExpression:      aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames: map[string]string{"#from": string(from), "#to": string(to)},
		ExpressionAttributeValues: item{
			":one": num(1), ":zero": num(0), ":refund": num(refund),
		},
	}}
}

// expirySlice bounds the recipients one slice of a completed campaign's
// expiry reads and expires.
const expirySlice = 100

// The expiry of a completed or deleted campaign's unclaimed recipients
// (gifting.JobCampaignExpire) is due work of a small record of its own
// (campaignExpirySK), put in the same transaction that ends the campaign,
// so the tick runs the expiry when the job's message is lost or was never
// sent (the process died after the commit, or the caller never got the
// answer and its retry found the campaign completed or gone). Not on the
// campaign item: every expiry updates that item's counters, and the due
// attributes and cursor would push a completed campaign (about 930 bytes
// with its completionData) over a kilobyte, a write unit more on each.

// expiryDue is the transaction item that makes the expiry of campaign c
// of org due a lease after now (the job's message has it first), nil when
// no recipient of c is unclaimed: c is exactly as written (its write is
// conditioned on its counters being unchanged since read, and a completed
// or deleted campaign takes no more recipients), so none will ever be.
func (s *Store) expiryDue(orgID string, c campaign.Campaign, now time.Time) *types.TransactWriteItem {
	counts := c.LiveData.StatusCounts
	if counts[gifting.RecipientPending]+counts[gifting.RecipientInviteSent] == 0 {
		return nil
	}
	it := dueOnlyItem(gifting.JobCampaignExpire, c.CampaignID, orgPK(orgID), campaignExpirySK(c.CampaignID), now.Add(DueLease))
	return &types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}}
}

// CampaignExpiryProgressed records the progress of the expiry of campaign
// campaignID's unclaimed recipients on its due item: the cursor of its
// next slice and its due time a lease on; with done, the expiry walked
// every recipient and its due item goes. A campaign ended before its
// expiry was due work has no due item, and nothing is written.
func (s *Store) CampaignExpiryProgressed(ctx context.Context, orgID, campaignID, cursor string, done bool) error {
	pk, sk := orgPK(orgID), campaignExpirySK(campaignID)
	if !done {
		return s.dueProgressed(ctx, pk, sk, cursor)
	}
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(pk, sk)}); err != nil {
		return fmt.Errorf("clear campaign expiry: %w", err)
	}
	return nil
}

// UnclaimedRecipients returns up to expirySlice ids of the campaign's
// unclaimed recipients (pending or invite_sent) after the cursor ("" for
// the start), in creation order, with the cursor of the next slice; done
// when none follow. It queries the campaign's Slim partition, filtered on
// the status (so a page reads at most expirySlice entries, matching or
// not).
func (s *Store) UnclaimedRecipients(ctx context.Context, orgID, campaignID, cursor string) (ids []string, next string, done bool, err error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		IndexName:              aws.String(indexSlim),
		KeyConditionExpression: aws.String("LPK = :lpk"),
		FilterExpression:       aws.String("st IN (:pending, :invited)"),
		ExpressionAttributeValues: item{
			":lpk":     str(recipientsLPK(orgID, campaignID)),
			":pending": str(string(gifting.RecipientPending)), ":invited": str(string(gifting.RecipientInviteSent)),
		},
		ProjectionExpression: aws.String("SK"),
		Limit:                aws.Int32(expirySlice),
	}
	if cursor != "" {
		// "<LSK> <SK>", or the LSK alone for a legacy recipient's, whose
		// SK is the same.
		lsk, sk, ok := strings.Cut(cursor, " ")
		if !ok {
			sk = lsk
		}
		in.ExclusiveStartKey = item{"LPK": str(recipientsLPK(orgID, campaignID)), "LSK": str(lsk),
			"PK": str(orgPK(orgID)), "SK": str(sk)}
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, "", false, fmt.Errorf("query unclaimed recipients: %w", err)
	}
	prefix := recipientSK(campaignID, "")
	for _, it := range out.Items {
		ids = append(ids, strings.TrimPrefix(attrS(it, "SK"), prefix))
	}
	if len(out.LastEvaluatedKey) == 0 {
		return ids, "", true, nil
	}
	return ids, attrS(out.LastEvaluatedKey, "LSK") + " " + attrS(out.LastEvaluatedKey, "SK"), false, nil
}
