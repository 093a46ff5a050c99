package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// launchRecord is the record of a campaign's launch (LAUNCH#<campaign>):
// what was paid and how far the launch job got. Created is counted in the
// same transactions as the recipients it counts, so the refund at the end
// is exact even when slices run twice.
type launchRecord struct {
	CampaignID          string   `json:"campaignId"`
	ListIDs             []string `json:"listIds"`
	Contacts            int64    `json:"contacts"`
	CreditsPerRecipient int64    `json:"creditsPerRecipient"`
	Debited             int64    `json:"debited"`
	Created             int64    `json:"created"`
	Refunded            int64    `json:"refunded"`
	// Cursor is where the next slice starts (LaunchSlice); "" before the
	// first.
	Cursor string `json:"cursor,omitempty"`
	// SliceFrom, SliceIDs and SliceNext are the claim of the slice in
	// progress: its cursor, its member ids and the cursor after it.
	SliceFrom *string  `json:"sliceFrom,omitempty"`
	SliceIDs  []string `json:"sliceIds,omitempty"`
	SliceNext string   `json:"sliceNext,omitempty"`
	// KeyedOnly says the campaign can have no recipient in the legacy
	// layout (a RCPTOF marker beside a random id): it had none when it was
	// launched by code that writes none. Records of earlier launches lack
	// it, so their slices read the markers.
	KeyedOnly  bool       `json:"keyedOnly,omitempty"`
	StartedBy  string     `json:"startedBy"`
	StartedAt  time.Time  `json:"startedAt"`
	ProgressAt time.Time  `json:"progressAt"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}

// LaunchCampaign accepts the launch of a draft: in one transaction (the
// wallet's, see ChangeBalance) it takes the credits of every contact of the
// campaign's lists, moves the campaign from draft to preparing and writes
// the launch record, due in the due index (due.go). The launch job
// (LaunchSlice) then writes the recipients; whether its message is ever
// sent or not, the scheduler tick finds the record due and drives the
// launch to its end, so the credits end as recipients or back in the
// wallet. It returns NOT_FOUND for a missing campaign, CONFLICT when the
// campaign is not a draft or cannot be launched as it is (no contact list,
// no gifts and no price, no contacts), INSUFFICIENT_CREDITS when the wallet
// is short; in each case nothing is written.
//
// The number of contacts is the size of the union of the lists' member
// ids (their member keys read, about one read unit per 40 members), so a
// contact in two lists is paid once, and at least each list's
// contactCount. Neither alone will do: an import moves a list's count after
// writing each chunk, so it trails the members while one runs and for good
// when one died in between (a launch that paid for it would leave the
// members past it uninvited), and the Slim index the member keys come from
// trails the table by a moment in AWS (a launch right after an import would
// see too few). A contact paid for and not written is refunded at the end.
func (s *Store) LaunchCampaign(ctx context.Context, orgID, campaignID, userID string) (gifting.Launch, error) {
	l, _, err := s.LaunchCampaignIdempotent(ctx, orgID, campaignID, userID, nil)
	return l, err
}

// LaunchCampaignIdempotent is LaunchCampaign under an idempotency key (nil:
// none): a retry of an accepted launch gets the first response back rather
// than a CONFLICT, and a key used for another request IDEMPOTENCY_KEY_REUSED.
func (s *Store) LaunchCampaignIdempotent(ctx context.Context, orgID, campaignID, userID string, idem *gifting.Idempotent[gifting.Launch]) (gifting.Launch, *gifting.StoredResponse, error) {
	if stored, err := s.IdempotentReplay(ctx, orgID, idem.KeyOf()); stored != nil || err != nil {
		return gifting.Launch{}, stored, err
	}
	l, err := s.launch(ctx, orgID, campaignID, userID, idem)
	// A concurrent request with the same key may have committed after the
	// replay check above: the campaign then is no longer a draft and this
	// one fails on it (before or in its transaction) with CONFLICT.
	if stored, err := s.replayAfter(ctx, orgID, idem.KeyOf(), err, gifting.CodeConflict); stored != nil || err != nil {
		return gifting.Launch{}, stored, err
	}
	return l, nil, nil
}

// launch accepts a launch; see LaunchCampaign.
func (s *Store) launch(ctx context.Context, orgID, campaignID, userID string, idem *gifting.Idempotent[gifting.Launch]) (gifting.Launch, error) {
	c, err := s.Campaign(ctx, orgID, campaignID)
	if err != nil {
		return gifting.Launch{}, err
	}
	if err := launchable(c); err != nil {
		return gifting.Launch{}, err
	}
	contacts, err := s.countContacts(ctx, orgID, c.CampaignData.ContactListIDs)
	if err != nil {
		return gifting.Launch{}, err
	}
	refs, gifts, err := s.launchRefs(ctx, orgID, c)
	if err != nil {
		return gifting.Launch{}, err
	}
	// As add-recipient: a price stored by older code out of bounds, or
	// below its catalog gifts' price, takes nobody.
	if err := priceOutOfBounds(c); err != nil {
		return gifting.Launch{}, err
	}
	if err := underPriced(c, gifts); err != nil {
		return gifting.Launch{}, err
	}
	if contacts == 0 {
		return gifting.Launch{}, gifting.Errorf(gifting.CodeConflict, "the campaign's contact lists have no contacts; add contacts before launching")
	}
	price := c.CampaignData.CreditsPerRecipient
	debited, err := wallet.MulCredits(contacts, price)
	if err != nil {
		return gifting.Launch{}, err
	}
	now := s.Now()
	rec := launchRecord{
		CampaignID: campaignID, ListIDs: c.CampaignData.ContactListIDs, Contacts: contacts,
		CreditsPerRecipient: price, Debited: debited, StartedBy: userID, StartedAt: now, ProgressAt: now,
		KeyedOnly: c.TotalRecipients == 0,
	}
	// The record is due a lease from now: the job enqueued after the
	// commit pushes that forward as it progresses, and if it never runs
	// (the enqueue failed, the process died) the scheduler tick takes the
	// launch over.
	attrs := dueAttrs(gifting.JobLaunch, campaignID, orgPK(orgID), launchSK(campaignID), now.Add(DueLease))
	attrs["PK"], attrs["SK"] = orgPK(orgID), launchSK(campaignID)
	recItem, err := withKey(rec, attrs)
	if err != nil {
		return gifting.Launch{}, err
	}
	progress, err := marshalValue(gifting.LaunchProgress{Contacts: contacts, LastProgressAt: now})
	if err != nil {
		return gifting.Launch{}, err
	}
	var tx txn
	w, _, err := s.ChangeBalance(ctx, BalanceChange{
		OrgID: orgID, Delta: -rec.Debited,
		Entry: wallet.Entry{Type: wallet.Debit, CampaignID: campaignID,
			Reason: fmt.Sprintf("campaign launch: %d contacts × %d credits", contacts, price)},
		Changes: []gifting.Change{gifting.NewChange(gifting.ChangeCampaignLaunched, c.Launched(now, userID, contacts))},
		Items: func(after int64) ([]types.TransactWriteItem, error) {
			tx = txn{}
			tx.add(condCampaign, types.TransactWriteItem{Update: &types.Update{
				TableName:        &s.table,
				Key:              key(orgPK(orgID), campaignSK(campaignID)),
				UpdateExpression: aws.String("SET #st = :preparing, updatedAt = :now, lastUpdatedBy = :user, liveData.launchedAt = :now, launchProgress = :progress " + dueRemove),
				// The draft read is the one priced: an edit since then
				// (other lists, gifts) fails the launch.
				ConditionExpression:      aws.String("attribute_exists(PK) AND #st = :draft AND updatedAt = :seen"),
				ExpressionAttributeNames: map[string]string{"#st": "status"},
				ExpressionAttributeValues: item{
					":preparing": str(string(gifting.CampaignPreparing)), ":draft": str(string(gifting.CampaignDraft)),
					":now": str(now.Format(time.RFC3339Nano)), ":user": str(userID),
					":seen": str(c.UpdatedAt.Format(time.RFC3339Nano)), ":progress": progress,
				},
			}})
			tx.add(condLaunch, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: recItem, ConditionExpression: aws.String("attribute_not_exists(PK)")}})
			for i, r := range refs {
				tx.add(refCheck(i), r.check)
			}
			if idem != nil {
				put, err := idempotentPut(s, orgID, idem, gifting.Launch{
					CampaignID: campaignID, Status: gifting.CampaignPreparing, Contacts: contacts,
					CreditsPerRecipient: price, CreditsDeducted: rec.Debited, RemainingBalance: after,
				})
				if err != nil {
					return nil, err
				}
				tx.add(condIdempotency, put)
			}
			return tx.items, nil
		},
		Cancelled: func(reasons []types.CancellationReason) error {
			if tx.failed(reasons, condIdempotency) {
				// A retry with the same key lost the race to the first.
				if err := s.lostTo(idem.Key, tx, reasons); err != nil {
					return err
				}
			}
			switch {
			case tx.failed(reasons, condCampaign):
				// Another launch or an edit got there first.
				now, err := s.Campaign(ctx, orgID, campaignID)
				if err != nil {
					return err
				}
				if now.Status == gifting.CampaignDraft {
					return gifting.Errorf(gifting.CodeConflict, "the campaign was edited while it was being launched; launch it again")
				}
				return now.NotDraft("launched")
			case tx.failed(reasons, condLaunch):
				return gifting.Errorf(gifting.CodeConflict, "campaign %q was already launched", campaignID)
			}
			for i, r := range refs {
				if tx.failed(reasons, refCheck(i)) {
					return refGone(r.ref)
				}
			}
			return nil
		},
	})
	if err != nil {
		return gifting.Launch{}, err
	}
	return gifting.Launch{
		CampaignID: campaignID, Status: gifting.CampaignPreparing, Contacts: contacts,
		CreditsPerRecipient: price, CreditsDeducted: rec.Debited, RemainingBalance: w.Balance,
	}, nil
}

// launchable says why c cannot be launched, or nil.
func launchable(c gifting.Campaign) error {
	switch {
	case !gifting.CanMove(c.Status, gifting.CampaignPreparing):
		return c.NotDraft("launched")
	case len(c.CampaignData.ContactListIDs) == 0:
		return gifting.Errorf(gifting.CodeConflict, "the campaign has no contact list; set contactListIds before launching")
	case len(c.CampaignData.GiftIDs) == 0 && !c.CampaignData.PriceSet:
		return gifting.Errorf(gifting.CodeConflict, "the campaign has no gifts; set campaignData.giftIds before launching")
	}
	return nil
}

// countContacts counts the distinct contacts of lists from their member
// keys, and at least the largest of their contactCounts. A list that no
// longer exists is a CONFLICT: the draft must be fixed first.
func (s *Store) countContacts(ctx context.Context, orgID string, lists []string) (int64, error) {
	seen := map[string]bool{}
	var counted int64
	for _, id := range lists {
		l, err := s.ContactList(ctx, orgID, id)
		if err != nil {
			return 0, listGone(err, id)
		}
		counted = max(counted, l.ContactCount)
		ids, err := s.memberIDs(ctx, orgID, id, -1)
		if err != nil {
			return 0, err
		}
		for _, c := range ids {
			seen[c] = true
		}
	}
	return max(int64(len(seen)), counted), nil
}

func listGone(err error, listID string) error {
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return gifting.Errorf(gifting.CodeConflict, "contact list %q of the campaign no longer exists; update the campaign before launching", listID)
	}
	return err
}

// marshalValue encodes v as one attribute value (a map for a struct).
func marshalValue(v any) (types.AttributeValue, error) {
	av, err := attributevalue.MarshalWithOptions(v, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	return av, nil
}

// launchRef is a resource a launching campaign refers to and the
// transaction item that checks it still exists.
type launchRef struct {
	ref   gifting.Ref
	check types.TransactWriteItem
}

// launchRefs checks that the template, gifts and contact lists c refers to
// exist, and returns the gifts and the checks the launch's transaction
// repeats for those of org's own (the service catalog's cannot be deleted by a tenant): a
// delete that commits first fails the launch, and a delete that comes
// after sees a campaign that is no longer a draft (commitRefDelete). A
// reference deleted while c was a draft is a CONFLICT naming it.
func (s *Store) launchRefs(ctx context.Context, orgID string, c gifting.Campaign) ([]launchRef, []gifting.Gift, error) {
	d := c.CampaignData
	var (
		refs  []launchRef
		gifts []gifting.Gift
	)
	own := func(ref gifting.Ref, sk string) {
		refs = append(refs, launchRef{ref: ref, check: types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: key(orgPK(orgID), sk), ConditionExpression: aws.String("attribute_exists(PK)"),
		}}})
	}
	if d.EmailTemplateID != "" {
		t, err := s.Template(ctx, orgID, d.EmailTemplateID)
		if err != nil {
			return nil, nil, refMissing(err, gifting.Ref{Kind: gifting.RefTemplate, ID: d.EmailTemplateID})
		}
		if !t.IsDelightloop {
			own(gifting.Ref{Kind: gifting.RefTemplate, ID: t.TemplateID}, templateSK(t.TemplateID))
		}
	}
	if len(d.GiftIDs) > 0 {
		var err error
		gifts, err = s.Gifts(ctx, orgID, d.GiftIDs)
		if err != nil {
			var missing *gifting.Error
			if errors.As(err, &missing) && missing.Code == gifting.CodeNotFound {
				return nil, nil, gifting.Errorf(gifting.CodeConflict, "%s; it was deleted: update the campaign before launching", missing.Message)
			}
			return nil, nil, err
		}
		for _, g := range gifts {
			if !g.IsDelightloop {
				own(gifting.Ref{Kind: gifting.RefGift, ID: g.GiftID}, giftSK(g.GiftID))
			}
		}
	}
	for _, id := range d.ContactListIDs {
		own(gifting.Ref{Kind: gifting.RefContactList, ID: id}, listSK(id))
	}
	return refs, gifts, nil
}

// refCheck names the i-th reference check of a launch.
func refCheck(i int) string { return "ref#" + strconv.Itoa(i) }

// refMissing turns the NOT_FOUND of a campaign's reference into the
// CONFLICT of its launch.
func refMissing(err error, ref gifting.Ref) error {
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return refGone(ref)
	}
	return err
}

// refGone is the CONFLICT of a launch whose campaign refers to a deleted
// resource.
func refGone(ref gifting.Ref) error {
	return gifting.Errorf(gifting.CodeConflict, "%s %q of the campaign no longer exists; update the campaign before launching", ref.Kind, ref.ID)
}
