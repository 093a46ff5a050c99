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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// Launch job tuning: a slice reads this many list members; a transaction
// writes at most this many recipients (2 items each, plus the campaign's
// counters, the launch record and the chunk's one change record: 99 of the
// 100 items a transaction may hold).
const (
	launchSliceSize = 500
	launchChunkSize = 48
)

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
// A slice may run again (a retry, a duplicate message): a contact that is
// already a recipient of the campaign is skipped, and the launch record's
// count of created recipients moves in the same transactions as the
// recipients, so nothing is counted or charged twice.
//
// Invitations work as in add-recipient (see Invitation). With an inviter
// (a mailer is configured) and a template whose invitation is due at once,
// each recipient is written invite_sent with its invitation marked sent,
// counted as invite_sent in the same transaction, and invite is called
// with the recipients of each transaction right after it commits; it
// sends them and puts back to pending, with their counts, those it could
// not send. Because a run only ever invites the recipients it created
// itself, a slice run twice sends no invitation twice. Without an inviter
// the recipients are pending with the invitation scheduled.
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
	list, after, err := parseLaunchCursor(cursor, len(rec.ListIDs))
	if err != nil {
		return "", false, err
	}
	if list >= len(rec.ListIDs) {
		return s.finishLaunch(ctx, orgID, c, rec)
	}
	ids, last, err := s.listMemberPage(ctx, orgID, rec.ListIDs[list], after, launchSliceSize)
	if err != nil {
		return "", false, err
	}
	if err := s.addLaunchRecipients(ctx, orgID, c, rec, rec.ListIDs[list], ids, publicBaseURL, invite); err != nil {
		return "", false, err
	}
	next = strconv.Itoa(list) + "|" + last
	if last == "" {
		next = strconv.Itoa(list + 1)
	}
	// The cursor goes on the record, so whoever continues the launch (the
	// job's next message or the scheduler tick) starts here.
	if err := s.dueProgressed(ctx, orgPK(orgID), launchSK(campaignID), next); err != nil {
		return "", false, err
	}
	return next, false, nil
}

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

// errLaunchOver stops a slice whose launch finished meanwhile.
var errLaunchOver = errors.New("launch is over")

// addLaunchRecipients makes the contacts ids of list listID recipients of
// c, launchChunkSize per transaction, one transaction after another: each
// touches the campaign's counters and the launch record, so concurrent ones
// would only conflict. Deleted or missing contacts are skipped (their
// credits are refunded at the end), as are contacts already recipients.
// The invitations of each transaction go to invite (when not nil) as soon
// as it commits, so a later failure of the slice loses none of them.
func (s *Store) addLaunchRecipients(ctx context.Context, orgID string, c gifting.Campaign, rec launchRecord, listID string, ids []string, publicBaseURL string, invite gifting.Inviter) error {
	contacts, err := s.contactsConcurrently(ctx, orgID, ids)
	if err != nil || len(contacts) == 0 {
		return err
	}
	kit, err := s.RecipientKit(ctx, orgID, c, publicBaseURL)
	if err != nil {
		return err
	}
	kit.Invite = invite != nil
	// The launch's recipients belong to the user behind the launching key,
	// as an added recipient belongs to the user who added it, so the
	// recipients list's userId filter finds them.
	kit.AssignTo = gifting.AssignedUser{UserID: rec.StartedBy, UserName: rec.StartedBy}
	delays := eventDelays(kit.Emails)
	for start := 0; start < len(contacts); start += launchChunkSize {
		written, err := s.writeLaunchChunk(ctx, orgID, kit, rec, listID, contacts[start:min(start+launchChunkSize, len(contacts))])
		var invs []gifting.Invitation
		for _, r := range written {
			if r.Emails.AddressConfirmation.ClaimedAt != nil {
				invs = append(invs, gifting.Invitation{Recipient: r, Delays: delays})
			}
		}
		if len(invs) > 0 {
			invite(ctx, invs)
		}
		if errors.Is(err, errLaunchOver) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeLaunchChunk writes the recipients of contacts in one transaction
// with the campaign's counters and the launch record's count, and returns
// the recipients it wrote (none on error). When some contacts already are
// recipients (their marker exists) the transaction is cancelled; they are
// dropped and the rest written again.
func (s *Store) writeLaunchChunk(ctx context.Context, orgID string, kit RecipientKit, rec launchRecord, listID string, contacts []gifting.Contact) ([]gifting.Recipient, error) {
	price := kit.Campaign.CampaignData.CreditsPerRecipient
	campaignID := kit.Campaign.CampaignID
	for attempt := 1; len(contacts) > 0; attempt++ {
		// Each contact's recipient and marker, named by the contact's
		// index; then the campaign's shared counters and the launch record.
		var tx txn
		written := make([]gifting.Recipient, 0, len(contacts))
		deltas := map[gifting.RecipientStatus]int64{}
		for i, ct := range contacts {
			r, its, err := s.PrepareRecipient(orgID, kit, ct, gifting.SourceContactList, listID)
			if err != nil {
				return nil, err
			}
			// The counter update is shared, below.
			tx.add(chunkRecipient(i), its[preparedRecipient])
			tx.add(chunkMarker(i), its[preparedMarker])
			written = append(written, r)
			deltas[r.Status]++
		}
		n := int64(len(contacts))
		spent, err := gifting.MulCredits(n, price)
		if err != nil {
			return nil, fmt.Errorf("launch chunk of %s: %w", campaignID, err)
		}
		now := s.Now()
		counters := s.campaignCounters(orgID, campaignID, deltas, spent)
		if kit.Campaign.LaunchProgress != nil {
			// The campaign's mirror of the record's count (launches
			// accepted before launchProgress existed have none).
			u := counters.Update
			u.UpdateExpression = aws.String(*u.UpdateExpression + ", launchProgress.created = launchProgress.created + :lpn, launchProgress.lastProgressAt = :lpnow")
			u.ExpressionAttributeValues[":lpn"], u.ExpressionAttributeValues[":lpnow"] = num(n), str(now.Format(time.RFC3339Nano))
		}
		tx.add(condCampaign, counters)
		created, err := s.changePut(orgID, recipientsCreated(written)...)
		if err != nil {
			return nil, err
		}
		tx.add("", created)
		tx.add(condLaunch, types.TransactWriteItem{Update: &types.Update{
			TableName:        &s.table,
			Key:              key(orgPK(orgID), launchSK(campaignID)),
			UpdateExpression: aws.String("SET progressAt = :now ADD created :n"),
			// Never more recipients than were paid for (a list can
			// grow during the launch), and none once it is over.
			ConditionExpression:       aws.String("attribute_not_exists(finishedAt) AND created <= :room"),
			ExpressionAttributeValues: item{":now": str(now.Format(time.RFC3339Nano)), ":n": num(n), ":room": num(rec.Contacts - n)},
		}})
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
		if err == nil {
			return written, nil
		}
		if attempt >= maxAttempts {
			return nil, fmt.Errorf("launch chunk: gave up after %d attempts: %w", attempt, err)
		}
		reasons := cancellationReasons(err)
		if retryable(err) {
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return nil, err
			}
			continue
		}
		if reasons == nil {
			return nil, fmt.Errorf("launch chunk: %w", err)
		}
		// Contacts already recipients first: they are final, and the
		// launch record's room must be judged without them.
		kept := contacts[:0:0]
		for i, ct := range contacts {
			if !tx.cancelled(reasons, chunkRecipient(i)) && !tx.cancelled(reasons, chunkMarker(i)) {
				kept = append(kept, ct)
			}
		}
		switch {
		case len(kept) < len(contacts):
			contacts = kept
		case tx.cancelled(reasons, condCampaign):
			return nil, fmt.Errorf("launch chunk: campaign %s no longer accepts recipients: %w", campaignID, err)
		case tx.cancelled(reasons, condLaunch):
			if err := s.launchFull(ctx, orgID, campaignID, &contacts); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("launch chunk: %w", err)
		}
	}
	return nil, nil
}

// launchFull handles a chunk refused by the launch record: the launch is
// over (errLaunchOver), or the chunk would pass the number of contacts paid
// for, in which case it is cut to the room left (nothing when none is).
func (s *Store) launchFull(ctx context.Context, orgID, campaignID string, contacts *[]gifting.Contact) error {
	var rec launchRecord
	if _, err := s.get(ctx, orgPK(orgID), launchSK(campaignID), &rec); err != nil {
		return err
	}
	room := rec.Contacts - rec.Created
	if rec.FinishedAt != nil || room <= 0 {
		return errLaunchOver
	}
	*contacts = (*contacts)[:min(int64(len(*contacts)), room)]
	return nil
}

// finishLaunch ends the launch: the campaign moves from preparing to live
// and the credits of contacts paid for but not made recipients go back to
// the wallet, with a ledger entry, in one transaction. The launch record is
// conditioned on the count it was computed from, so a slice still writing
// (a duplicate) makes the finish wait and try again.
func (s *Store) finishLaunch(ctx context.Context, orgID string, c gifting.Campaign, rec launchRecord) (string, bool, error) {
	now := s.Now()
	spent, err := gifting.MulCredits(rec.Created, rec.CreditsPerRecipient)
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
			Entry: gifting.LedgerEntry{Type: LedgerRefund, CampaignID: c.CampaignID,
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

// chunkRecipient and chunkMarker name the items of a launch chunk's i-th
// contact.
func chunkRecipient(i int) string { return fmt.Sprintf("%s %d", condRecipient, i) }
func chunkMarker(i int) string    { return fmt.Sprintf("%s %d", condMarker, i) }
