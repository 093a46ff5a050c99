package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// launchRecord is the record of a campaign's launch (LAUNCH#<campaign>) as
// stored: campaign.LaunchRecord with the attribute names it has on disk.
type launchRecord struct {
	CampaignID          string   `json:"campaignId"`
	ListIDs             []string `json:"listIds"`
	Contacts            int64    `json:"contacts"`
	CreditsPerRecipient int64    `json:"creditsPerRecipient"`
	Debited             int64    `json:"debited"`
	Created             int64    `json:"created"`
	Refunded            int64    `json:"refunded"`
	Cursor              string   `json:"cursor,omitempty"`
	// SliceFrom, SliceIDs and SliceNext are the claim of the slice in
	// progress (campaign.SliceClaim): its cursor, its member ids and the
	// cursor after it.
	SliceFrom  *string    `json:"sliceFrom,omitempty"`
	SliceIDs   []string   `json:"sliceIds,omitempty"`
	SliceNext  string     `json:"sliceNext,omitempty"`
	KeyedOnly  bool       `json:"keyedOnly,omitempty"`
	StartedBy  string     `json:"startedBy"`
	StartedAt  time.Time  `json:"startedAt"`
	ProgressAt time.Time  `json:"progressAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

func launchRecordOf(r campaign.LaunchRecord) launchRecord {
	rec := launchRecord{
		CampaignID: r.CampaignID, ListIDs: r.ListIDs, Contacts: r.Contacts, CreditsPerRecipient: r.CreditsPerRecipient,
		Debited: r.Debited, Created: r.Created, Refunded: r.Refunded, Cursor: r.Cursor, KeyedOnly: r.KeyedOnly,
		StartedBy: r.StartedBy, StartedAt: r.StartedAt, ProgressAt: r.ProgressAt, FinishedAt: r.FinishedAt,
	}
	if c := r.Claim; c != nil {
		rec.SliceFrom, rec.SliceIDs, rec.SliceNext = &c.From, c.IDs, c.Next
	}
	return rec
}

func (rec launchRecord) record() campaign.LaunchRecord {
	r := campaign.LaunchRecord{
		CampaignID: rec.CampaignID, ListIDs: rec.ListIDs, Contacts: rec.Contacts, CreditsPerRecipient: rec.CreditsPerRecipient,
		Debited: rec.Debited, Created: rec.Created, Refunded: rec.Refunded, Cursor: rec.Cursor, KeyedOnly: rec.KeyedOnly,
		StartedBy: rec.StartedBy, StartedAt: rec.StartedAt, ProgressAt: rec.ProgressAt, FinishedAt: rec.FinishedAt,
	}
	if rec.SliceFrom != nil {
		r.Claim = &campaign.SliceClaim{From: *rec.SliceFrom, IDs: rec.SliceIDs, Next: rec.SliceNext}
	}
	return r
}

// ListMemberIDs reads the member contact ids of org's list listID from its
// member keys (about one read unit per 40 members).
func (s *Store) ListMemberIDs(ctx context.Context, orgID, listID string) ([]string, error) {
	return s.memberIDs(ctx, orgID, listID, -1)
}

// CommitLaunch commits an accepted launch p in one transaction, under the
// wallet's plan (commitPlan): the debit conditioned on the balance it was
// decided from, the ledger entry holding the change record (p's messages
// and the wallet's own), the campaign's move draft → preparing conditioned
// on the draft as read (an edit since, other lists or gifts, fails the
// launch), the launch record due a lease from now in the due index (the
// job enqueued after the commit pushes that forward as it progresses, and
// if it never runs the scheduler's tick takes the launch over), a check
// that each of p's references still exists, and p's response under its
// key. Outcomes: see campaign.Launches.
func (s *Store) CommitLaunch(ctx context.Context, p campaign.LaunchPlan) error {
	c, now := p.Campaign, p.Record.StartedAt
	attrs := dueAttrs(gifting.JobLaunch, c.CampaignID, orgPK(p.OrgID), launchSK(c.CampaignID), now.Add(DueLease))
	attrs["PK"], attrs["SK"] = orgPK(p.OrgID), launchSK(c.CampaignID)
	recItem, err := withKey(launchRecordOf(p.Record), attrs)
	if err != nil {
		return err
	}
	progress, err := marshalValue(launchProgressItemOf(p.Launched.LaunchProgress))
	if err != nil {
		return err
	}
	var tx txn
	tx.add(condCampaign, types.TransactWriteItem{Update: &types.Update{
		TableName:                &s.table,
		Key:                      key(orgPK(p.OrgID), campaignSK(c.CampaignID)),
		UpdateExpression:         aws.String("SET #st = :preparing, updatedAt = :now, lastUpdatedBy = :user, liveData.launchedAt = :now, launchProgress = :progress " + dueRemove),
		ConditionExpression:      aws.String("attribute_exists(PK) AND #st = :draft AND updatedAt = :seen"),
		ExpressionAttributeNames: map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{
			":preparing": str(string(campaign.Preparing)), ":draft": str(string(campaign.Draft)),
			":now": str(now.Format(time.RFC3339Nano)), ":user": str(p.Record.StartedBy),
			":seen": str(c.UpdatedAt.Format(time.RFC3339Nano)), ":progress": progress,
		},
	}})
	tx.add(condLaunch, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: recItem, ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	for i, ref := range p.Refs {
		tx.add(refCheck(i), types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: key(orgPK(p.OrgID), refSK(ref)), ConditionExpression: aws.String("attribute_exists(PK)"),
		}})
	}
	var key gifting.IdempotencyKey
	if r := p.Response; r != nil {
		put, err := s.idempotencyPut(p.OrgID, r.Key, r.Status, r.Body)
		if err != nil {
			return err
		}
		tx.add(condIdempotency, put)
		key = r.Key
	}
	return s.commitPlan(ctx, p.Wallet, planWrites{items: tx.items, changes: p.Messages,
		cancelled: func(reasons []types.CancellationReason) error { return s.launchRefused(tx, reasons, key, p.Refs) }})
}

// launchRefused maps the cancellation of a launch's own items (reasons
// aligned with tx) to the launch's outcome: the idempotency key answered
// first (*campaign.Answered), the campaign no longer the draft read
// (campaign.ErrMoved), the launch record there (campaign.ErrLaunched), a
// reference gone (*campaign.RefGone); nil when not understood.
func (s *Store) launchRefused(tx txn, reasons []types.CancellationReason, k gifting.IdempotencyKey, refs []gifting.Ref) error {
	if tx.failed(reasons, condIdempotency) {
		// A retry with the same key lost the race to the first.
		if err := s.answered(k, tx, reasons); err != nil {
			return err
		}
	}
	switch {
	case tx.failed(reasons, condCampaign):
		return campaign.ErrMoved
	case tx.failed(reasons, condLaunch):
		return campaign.ErrLaunched
	}
	for i, ref := range refs {
		if tx.failed(reasons, refCheck(i)) {
			return &campaign.RefGone{Ref: ref}
		}
	}
	return nil
}

// refSK is the sort key of what ref names in its organization's partition.
func refSK(ref gifting.Ref) string {
	switch ref.Kind {
	case gifting.RefTemplate:
		return templateSK(ref.ID)
	case gifting.RefGift:
		return giftSK(ref.ID)
	}
	return listSK(ref.ID)
}

// refCheck names the i-th reference check of a launch.
func refCheck(i int) string { return "ref#" + strconv.Itoa(i) }

// LaunchRecord reads the launch record of campaignID; found is false when
// there is none.
func (s *Store) LaunchRecord(ctx context.Context, orgID, campaignID string) (campaign.LaunchRecord, bool, error) {
	var rec launchRecord
	found, err := s.get(ctx, orgPK(orgID), launchSK(campaignID), &rec)
	if err != nil {
		return campaign.LaunchRecord{}, false, fmt.Errorf("launch record: %w", err)
	}
	return rec.record(), found, nil
}

// LaunchDone takes the launch record of campaignID out of the due index:
// its launch is over.
func (s *Store) LaunchDone(ctx context.Context, orgID, campaignID string) error {
	return s.dueDone(ctx, orgPK(orgID), launchSK(campaignID))
}
