package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The writes of a launch slice's recipients: each recipient once, with a
// plain put conditioned on its key being free, marked with the slice
// (launch:<cursor>), so a run of the slice that finds a recipient of its
// own (an earlier run that did not finish, or a concurrent one) takes it
// as the slice's, and one that finds any other recipient skips the
// contact.

// WriteSlice puts the recipients of the claimed members w.IDs of the slice
// w.SliceID (of list w.ListID), launchPutters at a time, paced by pace,
// shows the campaign on their contacts (joinCampaign), and returns the
// slice's recipients: those it wrote and those an earlier run of the
// slice wrote. Contacts deleted since are skipped (their credits are
// refunded at the end), as are contacts already recipients of the
// campaign (in the legacy layout too, see recipientOfSK). It puts at most
// w.Room recipients.
func (s *Store) WriteSlice(ctx context.Context, w campaign.SliceWrite, pace campaign.Pace) ([]campaign.SliceRecipient, error) {
	mine, err := s.writeLaunchSlice(ctx, w, s.limiterOf(pace))
	if err != nil {
		return nil, err
	}
	out := make([]campaign.SliceRecipient, len(mine))
	for i, r := range mine {
		out[i] = campaign.SliceRecipient{Recipient: r.Recipient, Unchanged: r.Version == 1, Delays: r.Delays, EmailSet: r.EmailSet}
	}
	return out, nil
}

// writeLaunchSlice is WriteSlice, with the recipients as stored.
func (s *Store) writeLaunchSlice(ctx context.Context, w campaign.SliceWrite, pace *rate.Limiter) ([]recipient.Stored, error) {
	orgID, c, ids, sliceID := w.OrgID, w.Campaign, w.IDs, w.SliceID
	contacts, err := s.contactsConcurrently(ctx, orgID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]gifting.Contact, len(contacts))
	for _, ct := range contacts {
		byID[ct.ContactID] = ct
	}
	// Recipients an earlier run wrote for contacts deleted since are the
	// slice's all the same.
	mine, err := s.sliceRecipientsOfGone(ctx, orgID, c.CampaignID, ids, contacts, sliceID, pace)
	if err != nil {
		return nil, err
	}
	if !w.KeyedOnly {
		if contacts, err = s.withoutLegacyRecipients(ctx, orgID, c.CampaignID, contacts); err != nil {
			return nil, err
		}
	}
	if len(contacts) == 0 {
		return mine, nil
	}
	kit, err := s.RecipientKit(ctx, orgID, c, w.PublicBaseURL)
	if err != nil {
		return nil, err
	}
	kit.Invite = w.Invite
	// The launch's recipients belong to the user behind the launching key,
	// as an added recipient belongs to the user who added it, so the
	// recipients list's userId filter finds them.
	kit.AssignTo = recipient.AssignedUser{UserID: w.AssignTo, UserName: w.AssignTo}
	room := int(w.Room)
	for len(contacts) > 0 && len(mine) < room {
		wave := contacts[:min(room-len(mine), len(contacts))]
		contacts = contacts[len(wave):]
		got := make([]*recipient.Stored, len(wave))
		errs := eachAtMost(launchPutters, len(wave), func(i int) (err error) {
			got[i], err = s.putLaunchRecipient(ctx, orgID, kit, wave[i], w.ListID, sliceID, pace)
			return err
		})
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		for _, r := range got {
			if r != nil {
				mine = append(mine, *r)
			}
		}
	}
	// Before the count, so that a run that dies after it leaves nothing
	// for no run to do: a later run of the slice finds the same
	// recipients, writes their search entries again (recipientsearch.go)
	// and shows the campaign on the contacts still missing it.
	rs := make([]recipient.Recipient, len(mine))
	for i, r := range mine {
		rs[i] = r.Recipient
	}
	if err := s.writeRecipientWords(ctx, orgID, rs, false, pace); err != nil {
		return nil, err
	}
	if err := s.joinCampaign(ctx, orgID, c, byID, mine, pace); err != nil {
		return nil, err
	}
	return mine, nil
}

// putLaunchRecipient puts the recipient of contact ct, written by slice
// sliceID, if the contact is not a recipient yet. It returns the slice's
// recipient of the contact: the one it wrote, or the one an earlier run of
// the slice wrote; nil when the contact already was a recipient otherwise.
func (s *Store) putLaunchRecipient(ctx context.Context, orgID string, kit recipient.Kit, ct gifting.Contact, listID, sliceID string, pace *rate.Limiter) (*recipient.Stored, error) {
	r := s.newRecipient(orgID, kit, ct, recipient.SourceContactList, listID)
	sr := kit.Stored(r, sliceID)
	it, err := s.recipientItem(orgID, sr)
	if err != nil {
		return nil, err
	}
	if err := waitUnits(ctx, pace, writeUnits(it)); err != nil {
		return nil, fmt.Errorf("launch pace: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it,
		ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var cond *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return &sr, nil
	case errors.As(err, &cond):
		if cond.Item[recipientGoneAttr] != nil || attrS(cond.Item, "ls") != sliceID {
			return nil, nil // already a recipient, or settled as gone by another run
		}
		old, err := s.readRecipient(ctx, cond.Item)
		if err != nil {
			return nil, err
		}
		return &old, nil
	}
	return nil, fmt.Errorf("put launch recipient: %w", err)
}

// sliceRecipientsOfGone settles, for each member of the slice whose
// contact is gone (deleted since the slice was claimed), whether the slice
// has a recipient for it. It puts a tombstone at the recipient's key, only
// if the key is free: a run that still saw the contact and puts its
// recipient later finds the tombstone and writes nothing (putLaunchRecipient),
// and a recipient an earlier run of this slice wrote there first is the
// slice's and is returned, to be counted. Every run of the slice decides on
// the same key, so no recipient is written that the counting run missed.
// Tombstones have no index keys, read as missing (recipient) and expire.
func (s *Store) sliceRecipientsOfGone(ctx context.Context, orgID, campaignID string, ids []string, contacts []gifting.Contact, sliceID string, pace *rate.Limiter) ([]recipient.Stored, error) {
	if len(contacts) == len(ids) {
		return nil, nil
	}
	have := make(map[string]bool, len(contacts))
	for _, ct := range contacts {
		have[ct.ContactID] = true
	}
	expires := num(s.Now().Add(tombstoneRetention).Unix())
	var out []recipient.Stored
	for _, id := range ids {
		if have[id] {
			continue
		}
		if err := waitUnits(ctx, pace, 1); err != nil {
			return nil, fmt.Errorf("launch pace: %w", err)
		}
		k := key(orgPK(orgID), recipientSK(campaignID, recipientIDFor(campaignID, id)))
		k[recipientGoneAttr], k["ls"], k["expiresAt"] = &types.AttributeValueMemberBOOL{Value: true}, str(sliceID), expires
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.table, Item: k,
			ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var cond *types.ConditionalCheckFailedException
		switch {
		case err == nil:
			continue // tombstone placed: no run of the slice writes a recipient here
		case !errors.As(err, &cond):
			return nil, fmt.Errorf("launch tombstone: %w", err)
		case cond.Item[recipientGoneAttr] != nil || attrS(cond.Item, "ls") != sliceID:
			continue // a tombstone, or a recipient from before this launch
		}
		r, err := s.readRecipient(ctx, cond.Item)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// recipientGoneAttr marks a launch tombstone: the key of the recipient a
// launch slice did not write because its contact was deleted.
const recipientGoneAttr = "gone"

// tombstoneRetention is how long a launch tombstone is kept: far longer
// than any run of a slice can lag behind another.
const tombstoneRetention = 7 * 24 * time.Hour

// withoutLegacyRecipients drops from contacts those already recipients of
// the campaign in the legacy layout (their RCPTOF marker exists): a launch
// accepted before recipient keys were derived from contacts, or of a
// campaign that had recipients when it was launched.
func (s *Store) withoutLegacyRecipients(ctx context.Context, orgID, campaignID string, contacts []gifting.Contact) ([]gifting.Contact, error) {
	keys := make([]item, len(contacts))
	for i, ct := range contacts {
		keys[i] = key(orgPK(orgID), recipientOfSK(campaignID, ct.ContactID))
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil || len(got) == 0 {
		return contacts, err
	}
	marked := make(map[string]bool, len(got))
	for _, it := range got {
		marked[attrS(it, "SK")] = true
	}
	kept := contacts[:0:0]
	for _, ct := range contacts {
		if !marked[recipientOfSK(campaignID, ct.ContactID)] {
			kept = append(kept, ct)
		}
	}
	return kept, nil
}

// contactsConcurrently is ContactsByID with its batches of 100 read at the
// same time: a slice's reads then take as long as one batch.
func (s *Store) contactsConcurrently(ctx context.Context, orgID string, ids []string) ([]gifting.Contact, error) {
	parts := make([][]gifting.Contact, (len(ids)+99)/100)
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i], errs[i] = s.ContactsByID(ctx, orgID, ids[i*100:min((i+1)*100, len(ids))])
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(parts...), nil
}

// eachAtMost calls f(i) for every i in [0, n), at most limit calls at a
// time, and returns each call's error at its index.
func eachAtMost(limit, n int, f func(i int) error) []error {
	errs := make([]error, n)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(limit, n) {
		wg.Go(func() {
			for i := range work {
				errs[i] = f(i)
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	return errs
}
