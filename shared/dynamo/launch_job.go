package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Launch job tuning: a slice reads this many list members and writes
// their recipients with this many puts at a time. A slice whose recipients
// are invited at once takes fewer: its sender sends them one after another
// right after the slice is counted, and a slice must never hold more
// invitations than it can send well inside the worker's timeout (150 s)
// and the launch's lease (DueLease). At about 100 ms a send and its record
// (SES's answer, then one read and one transaction) 100 take 10 s; under
// SES throttling (each send retried up to five times, about 1.5 s of
// backoff on average) the sender stops at its time budget
// (service.launchSendBudget) and leaves the rest to their claims' leases.
const (
	launchSliceSize       = 500
	launchInviteSliceSize = 100
	launchPutters         = 4
)

// LaunchWriteRate is the default pace of a launch (and of an audience
// build, whose members go to the same partition): the write units a
// second its recipients' puts and its contacts' updates (joinCampaign) may
// take from the organization's partition (ORG#<org>), which they all share:
// two units a launched recipient under 1 KB. DynamoDB gives one partition
// key 1,000 a second; the rest is left to the organization's other work. Each
// recipient also writes one Slim entry, into the campaign's own Slim
// partition, about half as much as into the table's; its Due and Pages
// entries spread over several keys.
const LaunchWriteRate = 800

// waitUnits waits until pace allows units write units, taking them in
// pieces of at most its burst (a limiter refuses a bigger one at once).
func waitUnits(ctx context.Context, pace *rate.Limiter, units int) error {
	for units > 0 {
		n := min(units, pace.Burst())
		if err := pace.WaitN(ctx, n); err != nil {
			return err
		}
		units -= n
	}
	return nil
}

// launchWriteBurst is the most write units a launch may take at once
// beyond its pace: the biggest single write of a slice (its record of
// which contacts it covers, its counters) fits.
const launchWriteBurst = 64

// WithLaunchWriteRate sets the pace of launches and audience builds in
// write units a second
// (LaunchWriteRate when not set).
func WithLaunchWriteRate(units float64) Option {
	return func(s *Store) { s.launchRate = units }
}

// WithIndexSettle makes a launch wait, before it reads its first list
// members from the Slim index, until d has passed since it was accepted:
// DynamoDB updates a global secondary index a moment after the table
// (typically well under a second), so a contact imported just before the
// launch would otherwise be missed (and its credits refunded). DynamoDB
// Local updates its indexes with the table, so only deployed stacks set it
// (app.NewStore: IndexSettle).
func WithIndexSettle(d time.Duration) Option {
	return func(s *Store) { s.indexSettle = d }
}

// IndexSettle is how long a deployed launch lets its lists' index catch up
// (WithIndexSettle).
const IndexSettle = 2 * time.Second

// LaunchFinishCursor is the cursor of the launch job's last step.
const launchFinishCursor = "finish"

// LaunchSlice does one slice of the launch of a preparing campaign: it
// turns up to launchSliceSize members of its lists (from cursor, "" at the
// start) into recipients, and returns the cursor of the next slice, or
// done when the launch is over. When every member is done it moves the
// campaign to live and refunds the credits of the contacts that were paid
// for but did not become recipients (already recipients, deleted since),
// so the launch costs exactly recipients created × price. The finish takes
// the launch record out of the due index; every other slice records its
// cursor there and pushes the record's due time a lease ahead (due.go), so
// the scheduler tick continues a launch whose job stopped.
//
// A slice goes in three steps, so that it writes each recipient once, with
// a plain put, and counts them all at once:
//
//  1. it claims its contacts: the launch record takes the member ids of the
//     slice (sliceIds), so every run of the slice works on the same ones;
//  2. it puts their recipients, paced (LaunchWriteRate), each only if
//     absent and marked with the slice (launchSliceID): a put that finds a
//     recipient marked with this slice (written by an earlier run that did
//     not finish, or by a concurrent one) counts it as the slice's, and one
//     that finds any other recipient skips the contact;
//  3. one transaction counts the slice's recipients on the campaign and the
//     launch record (created), records their recipient.created messages
//     and moves the record's cursor on, conditioned on the record still
//     holding this slice's claim: of the runs of one slice only one counts.
//
// A run whose cursor the launch has already passed returns the launch's
// cursor. Never more recipients are counted than were paid for (a list can
// grow during the launch): a slice puts at most the room left.
//
// A slice takes at most the room left (the contacts paid for less the
// recipients counted), so no run of it can write more recipients than the
// launch may count, and a launch whose room is used up finishes. Every
// recipient is counted at the status it was written with (pending): a
// recipient moved before its slice is counted (its invitation sent by the
// tick, a status change) moved the counters from pending already.
//
// Invitations work as in add-recipient (see Invitation). With an inviter
// (a mailer is configured) and a template whose invitation is due at once,
// each recipient is written pending with its invitation claimed
// (gifting.ClaimInvitation), and invite is called with the slice's
// recipients right after the transaction that counts them commits, those
// whose claim is still the slice's to use (gifting.HolderMaySend); it sends
// them, and each moves to invite_sent when the mail provider accepted it
// (EmailSent). An invitation the inviter does not send (the process died,
// its time ran out, the send failed) stays claimed until its lease ends,
// then the tick sends it: at least once. Without an inviter the recipients
// are pending with the invitation scheduled.
func (s *Store) LaunchSlice(ctx context.Context, orgID, campaignID, cursor, publicBaseURL string, invite gifting.Inviter) (next string, done bool, err error) {
	c, err := s.Campaign(ctx, orgID, campaignID)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return "", true, s.dueDone(ctx, orgPK(orgID), launchSK(campaignID))
	}
	if err != nil {
		return "", false, err
	}
	var rec launchRecord
	found, err := s.get(ctx, orgPK(orgID), launchSK(campaignID), &rec)
	if err != nil {
		return "", false, err
	}
	if found && rec.FinishedAt == nil && c.Status != gifting.CampaignPreparing {
		// A record left unfinished by a campaign that moved on: nothing
		// is left to drive.
		return "", true, s.dueDone(ctx, orgPK(orgID), launchSK(campaignID))
	}
	if c.Status != gifting.CampaignPreparing || !found || rec.FinishedAt != nil {
		return "", true, nil
	}
	if cursor == launchFinishCursor {
		return s.finishLaunch(ctx, orgID, c, rec)
	}
	if rec.Cursor != cursor {
		// Another run did this slice already: go on from the launch's
		// cursor.
		return rec.Cursor, false, nil
	}
	list, after, err := parseLaunchCursor(cursor, len(rec.ListIDs))
	if err != nil {
		return "", false, err
	}
	room := rec.Contacts - rec.Created
	if list >= len(rec.ListIDs) || room <= 0 {
		// Every list read, or every contact paid for a recipient.
		return s.finishLaunch(ctx, orgID, c, rec)
	}
	// One pace for the run: its writes all go to the organization's
	// partition.
	pace := rate.NewLimiter(rate.Limit(s.launchRate), launchWriteBurst)
	ids, next := rec.SliceIDs, rec.SliceNext
	if rec.SliceFrom == nil || *rec.SliceFrom != cursor {
		if cursor == "" {
			// The members come from the Slim index, which AWS keeps a
			// moment behind the table: let the writes made before the
			// launch (an import just finished) reach it first.
			if wait := rec.StartedAt.Add(s.indexSettle).Sub(s.Now()); wait > 0 {
				if err := sleep(ctx, min(wait, s.indexSettle)); err != nil {
					return "", false, err
				}
			}
		}
		size := launchSliceSize
		if invite != nil && c.CampaignData.EmailTemplateID != "" {
			size = launchInviteSliceSize
		}
		var last string
		ids, last, err = s.listMemberPage(ctx, orgID, rec.ListIDs[list], after, int(min(int64(size), room)))
		if err != nil {
			return "", false, err
		}
		next = strconv.Itoa(list) + "|" + last
		if last == "" {
			next = strconv.Itoa(list + 1)
		}
		claimed, err := s.claimLaunchSlice(ctx, orgID, campaignID, cursor, ids, next, pace)
		if err != nil || !claimed {
			// Another run claimed it or moved on: run again from the
			// record.
			return cursor, false, err
		}
	}
	mine, err := s.writeLaunchSlice(ctx, orgID, c, rec, rec.ListIDs[list], ids, launchSliceID(cursor), publicBaseURL, invite != nil, pace)
	if err != nil {
		return "", false, err
	}
	committed, err := s.countLaunchSlice(ctx, orgID, c, rec, cursor, next, len(ids), mine, pace)
	if err != nil || !committed {
		return cursor, false, err
	}
	if invs := s.sliceInvitations(mine); invite != nil && len(invs) > 0 {
		invite(ctx, invs)
	}
	return next, false, nil
}

// sliceInvitations are the invitations of the slice's recipients rs that
// the run that counted them may send: claimed when written, unchanged
// since (version 1: nobody else took them over) and with enough of their
// lease left (gifting.EmailSchedule.HolderMaySend).
func (s *Store) sliceInvitations(rs []storedRecipient) []gifting.Invitation {
	now := s.Now()
	var invs []gifting.Invitation
	for _, r := range rs {
		e := r.Emails.AddressConfirmation
		if r.Ver == 1 && e.ClaimedAt != nil && e.HolderMaySend(*e.ClaimedAt, now) {
			invs = append(invs, gifting.Invitation{Recipient: r.Recipient, Delays: r.Delays, EmailSet: r.EmailSet})
		}
	}
	return invs
}

// launchSliceID marks the recipients a launch slice writes: the cursor it
// starts from, unique within the launch (a campaign launches once).
func launchSliceID(cursor string) string { return "launch:" + cursor }

// parseLaunchCursor reads "<list index>" or "<list index>|<last member sort key>".
func parseLaunchCursor(cursor string, lists int) (list int, after string, err error) {
	if cursor == "" {
		return 0, "", nil
	}
	idx, after, _ := strings.Cut(cursor, "|")
	list, err = strconv.Atoi(idx)
	if err != nil || list < 0 || list > lists {
		return 0, "", fmt.Errorf("bad launch cursor %q", cursor)
	}
	return list, after, nil
}

// claimLaunchSlice records on the launch record the member ids of the
// slice that starts at cursor and the cursor that follows it, and pushes
// the record's due time a lease ahead. It reports false when the record
// no longer is at cursor or another run claimed the slice first.
func (s *Store) claimLaunchSlice(ctx context.Context, orgID, campaignID, cursor string, ids []string, next string, pace *rate.Limiter) (bool, error) {
	pk, sk := orgPK(orgID), launchSK(campaignID)
	idList := make([]types.AttributeValue, len(ids))
	for i, id := range ids {
		idList[i] = str(id)
	}
	cond := "attribute_not_exists(finishedAt) AND attribute_not_exists(sliceFrom) AND " + atCursor(cursor)
	values := item{":from": str(cursor), ":ids": &types.AttributeValueMemberL{Value: idList}, ":next": str(next),
		":due": str(dueSK(s.Now().Add(DueLease), pk, sk))}
	if err := waitUnits(ctx, pace, sliceUnits(len(ids))); err != nil {
		return false, fmt.Errorf("launch pace: %w", err)
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(pk, sk),
		UpdateExpression:          aws.String("SET sliceFrom = :from, sliceIds = :ids, sliceNext = :next, dueAt = :due"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#cur": "cursor"},
		ExpressionAttributeValues: values,
	})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim launch slice: %w", err)
	}
	return true, nil
}

// atCursor is the condition that the launch record is at cursor (:from);
// a record no slice has moved yet has no cursor attribute.
func atCursor(cursor string) string {
	if cursor == "" {
		return "(attribute_not_exists(#cur) OR #cur = :from)"
	}
	return "#cur = :from"
}

// writeLaunchSlice puts the recipients of the member ids of the slice
// sliceID (of list listID), launchPutters at a time, paced by pace, shows
// the campaign on their contacts (joinCampaign), and returns the slice's
// recipients: those it wrote and those an earlier run of the slice wrote. Contacts deleted since are skipped (their credits
// are refunded at the end), as are contacts already recipients of the
// campaign (in the legacy layout too, see recipientOfSK). It puts at most
// the launch's room left.
func (s *Store) writeLaunchSlice(ctx context.Context, orgID string, c gifting.Campaign, rec launchRecord, listID string, ids []string, sliceID, publicBaseURL string, invite bool, pace *rate.Limiter) ([]storedRecipient, error) {
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
	if !rec.KeyedOnly {
		if contacts, err = s.withoutLegacyRecipients(ctx, orgID, c.CampaignID, contacts); err != nil {
			return nil, err
		}
	}
	if len(contacts) == 0 {
		return mine, nil
	}
	kit, err := s.RecipientKit(ctx, orgID, c, publicBaseURL)
	if err != nil {
		return nil, err
	}
	kit.Invite = invite
	// The launch's recipients belong to the user behind the launching key,
	// as an added recipient belongs to the user who added it, so the
	// recipients list's userId filter finds them.
	kit.AssignTo = gifting.AssignedUser{UserID: rec.StartedBy, UserName: rec.StartedBy}
	room := int(rec.Contacts - rec.Created)
	for len(contacts) > 0 && len(mine) < room {
		wave := contacts[:min(room-len(mine), len(contacts))]
		contacts = contacts[len(wave):]
		got := make([]*storedRecipient, len(wave))
		errs := eachAtMost(launchPutters, len(wave), func(i int) (err error) {
			got[i], err = s.putLaunchRecipient(ctx, orgID, kit, wave[i], listID, sliceID, pace)
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
	// recipients and shows the campaign on the contacts still missing it.
	if err := s.joinCampaign(ctx, orgID, c, byID, mine, pace); err != nil {
		return nil, err
	}
	return mine, nil
}

// putLaunchRecipient puts the recipient of contact ct, written by slice
// sliceID, if the contact is not a recipient yet. It returns the slice's
// recipient of the contact: the one it wrote, or the one an earlier run of
// the slice wrote; nil when the contact already was a recipient otherwise.
func (s *Store) putLaunchRecipient(ctx context.Context, orgID string, kit RecipientKit, ct gifting.Contact, listID, sliceID string, pace *rate.Limiter) (*storedRecipient, error) {
	r := s.newRecipient(orgID, kit, ct, gifting.SourceContactList, listID)
	sr := s.newStoredRecipient(r, kit, sliceID)
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
func (s *Store) sliceRecipientsOfGone(ctx context.Context, orgID, campaignID string, ids []string, contacts []gifting.Contact, sliceID string, pace *rate.Limiter) ([]storedRecipient, error) {
	if len(contacts) == len(ids) {
		return nil, nil
	}
	have := make(map[string]bool, len(contacts))
	for _, ct := range contacts {
		have[ct.ContactID] = true
	}
	expires := num(s.Now().Add(tombstoneRetention).Unix())
	var out []storedRecipient
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

// countLaunchSlice counts the slice's recipients mine in one transaction:
// the campaign's counters, the launch record's count of created
// recipients (never past the contacts paid for) with its cursor moved from
// the slice's to next and its claim cleared, and the recipient.created
// messages. It reports false, with nothing counted, when another run of
// the slice counted it first. A campaign that no longer takes the slice's
// recipients (deleted, or paused since they were written invited) fails
// the slice: its recipients are deleted, so a later run writes them again
// as the campaign is then.
func (s *Store) countLaunchSlice(ctx context.Context, orgID string, c gifting.Campaign, rec launchRecord, cursor, next string, members int, mine []storedRecipient, pace *rate.Limiter) (bool, error) {
	campaignID := c.CampaignID
	pk, sk := orgPK(orgID), launchSK(campaignID)
	n := int64(len(mine))
	now := s.Now()
	var tx txn
	values := item{":from": str(cursor), ":next": str(next), ":now": str(now.Format(time.RFC3339Nano)), ":n": num(n),
		":room": num(rec.Contacts - n), ":due": str(dueSK(now.Add(DueLease), pk, sk))}
	tx.add(condLaunch, types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table,
		Key:       key(pk, sk),
		UpdateExpression: aws.String("SET #cur = :next, progressAt = :now, dueAt = :due " +
			"REMOVE sliceFrom, sliceIds, sliceNext ADD created :n"),
		ConditionExpression:       aws.String("attribute_not_exists(finishedAt) AND sliceFrom = :from AND created <= :room"),
		ExpressionAttributeNames:  map[string]string{"#cur": "cursor"},
		ExpressionAttributeValues: values,
	}})
	if n > 0 {
		deltas := map[gifting.RecipientStatus]int64{}
		created := make([]gifting.Recipient, len(mine))
		inviting := false
		for i, r := range mine {
			deltas[writtenStatus(r)]++
			created[i] = r.Recipient
			inviting = inviting || r.Emails.AddressConfirmation.ClaimedAt != nil
		}
		spent, err := wallet.MulCredits(n, c.CampaignData.CreditsPerRecipient)
		if err != nil {
			return false, fmt.Errorf("launch slice of %s: %w", campaignID, err)
		}
		counters := s.campaignCounters(orgID, campaignID, deltas, spent, inviting)
		if c.LaunchProgress != nil {
			// The campaign's mirror of the record's count (launches
			// accepted before launchProgress existed have none).
			u := counters.Update
			u.UpdateExpression = aws.String(*u.UpdateExpression + ", launchProgress.created = launchProgress.created + :lpn, launchProgress.lastProgressAt = :lpnow")
			u.ExpressionAttributeValues[":lpn"], u.ExpressionAttributeValues[":lpnow"] = num(n), str(now.Format(time.RFC3339Nano))
		}
		tx.add(condCampaign, counters)
		msgs, err := s.changePut(orgID, recipientsCreated(created)...)
		if err != nil {
			return false, err
		}
		tx.add("", msgs)
	}
	// The record (it holds the slice's member ids) and the campaign, each
	// written twice by the transaction.
	if err := waitUnits(ctx, pace, 2*sliceUnits(members)+2*campaignUnits); err != nil {
		return false, fmt.Errorf("launch pace: %w", err)
	}
	err := s.transactRetrying(ctx, tx.items)
	if err == nil {
		return true, nil
	}
	reasons := cancellationReasons(err)
	switch {
	case tx.failed(reasons, condLaunch):
		// Another run counted the slice, or the launch is over; a record
		// that still holds this slice's claim refused the count itself,
		// which no run of the slice can get past (and must not spin on).
		return false, s.sliceStillClaimed(ctx, pk, sk, cursor)
	case tx.failed(reasons, condCampaign):
		if err := s.dropSliceRecipients(ctx, orgID, mine); err != nil {
			return false, err
		}
		return false, fmt.Errorf("launch slice: campaign %s no longer takes its recipients: %w", campaignID, err)
	}
	return false, fmt.Errorf("launch slice: %w", err)
}

// writtenStatus is the status the launch slice wrote r with, at which its
// count counts it: its status while it is unchanged since (version 1),
// else pending, which every launch writes (a move since then moved the
// campaign's counters from pending).
func writtenStatus(r storedRecipient) gifting.RecipientStatus {
	if r.Ver == 1 {
		return r.Status
	}
	return gifting.RecipientPending
}

// sliceStillClaimed is the error of a count the launch record refused
// while it still holds the claim of the slice at cursor (a record its
// slice cannot be counted on), nil when the record moved on.
func (s *Store) sliceStillClaimed(ctx context.Context, pk, sk, cursor string) error {
	var rec launchRecord
	found, err := s.get(ctx, pk, sk, &rec)
	if err != nil || !found || rec.FinishedAt != nil || rec.SliceFrom == nil || *rec.SliceFrom != cursor {
		return err
	}
	return fmt.Errorf("launch slice at %q: the launch record refuses its count (%d created of %d paid)", cursor, rec.Created, rec.Contacts)
}

// dropSliceRecipients deletes the slice's recipients rs that nothing has
// changed since they were written.
func (s *Store) dropSliceRecipients(ctx context.Context, orgID string, rs []storedRecipient) error {
	for _, r := range rs {
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: &s.table, Key: key(orgPK(orgID), recipientSK(r.CampaignID, r.RecipientID)),
			ConditionExpression:       aws.String("ls = :slice AND ver = :one"),
			ExpressionAttributeValues: item{":slice": str(r.Slice), ":one": num(1)},
		})
		if err != nil && !isConditionFailed(err) {
			return fmt.Errorf("drop launch recipient: %w", err)
		}
	}
	return nil
}

// finishLaunch ends the launch: the campaign moves from preparing to live
// and the credits of contacts paid for but not made recipients go back to
// the wallet, with a ledger entry, in one transaction. The launch record is
// conditioned on the count it was computed from, so a slice still writing
// (a duplicate) makes the finish wait and try again.
func (s *Store) finishLaunch(ctx context.Context, orgID string, c gifting.Campaign, rec launchRecord) (string, bool, error) {
	now := s.Now()
	spent, err := wallet.MulCredits(rec.Created, rec.CreditsPerRecipient)
	if err != nil || spent > rec.Debited {
		return "", false, fmt.Errorf("finish launch of %s: %d recipients at %d credits exceed the %d debited", c.CampaignID, rec.Created, rec.CreditsPerRecipient, rec.Debited)
	}
	refund := rec.Debited - spent
	live := "SET #st = :live, updatedAt = :now, liveData.liveAt = :now"
	values := item{
		":live": str(string(gifting.CampaignLive)), ":preparing": str(string(gifting.CampaignPreparing)),
		":now": str(now.Format(time.RFC3339Nano)),
	}
	if c.LaunchProgress != nil {
		live += ", launchProgress.finishedAt = :now, launchProgress.lastProgressAt = :now, launchProgress.refunded = :refund"
		values[":refund"] = num(refund)
	}
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(orgPK(orgID), campaignSK(c.CampaignID)),
			UpdateExpression:          aws.String(live),
			ConditionExpression:       aws.String("attribute_exists(PK) AND #st = :preparing"),
			ExpressionAttributeNames:  map[string]string{"#st": "status"},
			ExpressionAttributeValues: values,
		}},
		{Update: &types.Update{
			TableName: &s.table,
			Key:       key(orgPK(orgID), launchSK(c.CampaignID)),
			// Done: out of the due index.
			UpdateExpression:          aws.String("SET finishedAt = :now, progressAt = :now, refunded = :refund " + dueRemove),
			ConditionExpression:       aws.String("attribute_not_exists(finishedAt) AND created = :created"),
			ExpressionAttributeValues: item{":now": str(now.Format(time.RFC3339Nano)), ":refund": num(refund), ":created": num(rec.Created)},
		}},
	}
	liveChange := gifting.NewChange(gifting.ChangeCampaignLive, c.Live(now, refund))
	if refund > 0 {
		_, _, err = s.ChangeBalance(ctx, BalanceChange{
			OrgID: orgID, Delta: refund, Changes: []gifting.Change{liveChange},
			Entry: wallet.Entry{Type: wallet.Refund, CampaignID: c.CampaignID,
				Reason: fmt.Sprintf("campaign launch: %d of %d contacts paid for did not become recipients", rec.Contacts-rec.Created, rec.Contacts)},
			Items:     func(int64) ([]types.TransactWriteItem, error) { return items, nil },
			Cancelled: func([]types.CancellationReason) error { return errFinishRaced },
		})
	} else {
		change, cerr := s.changePut(orgID, liveChange)
		if cerr != nil {
			return "", false, cerr
		}
		err = s.transactRetrying(ctx, append(items, change))
		if cancellationReasons(err) != nil && !retryable(err) {
			err = errFinishRaced
		}
	}
	if errors.Is(err, errFinishRaced) {
		// The campaign already went live (a duplicate finished first), or
		// a duplicate slice is still counting: run the finish again.
		return launchFinishCursor, false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("finish launch: %w", err)
	}
	return "", true, nil
}

// errFinishRaced is a finish that lost to a concurrent change of the
// campaign or the launch record.
var errFinishRaced = errors.New("launch finish raced")

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

// sliceUnits estimates the write units of a launch record that holds the
// claim of a slice of members member ids (about 30 bytes each).
func sliceUnits(members int) int { return 1 + members*30/1024 }

// campaignUnits estimates the write units of a campaign item.
const campaignUnits = 4

// writeUnits is the number of 1 KB write units a put of it takes: its
// size as DynamoDB counts it (names and values), rounded up.
func writeUnits(it item) int { return max(1, (ItemSize(it)+1023)/1024) }

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
