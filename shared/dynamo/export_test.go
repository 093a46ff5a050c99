package dynamo

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/wire"
)

// LegacyRecipientItems are the recipient item and the RCPTOF marker that
// the code before packed records and derived recipient keys wrote for a
// new recipient r (its recipientItem and recipientItems, copied), so tests
// can fill a table as that code did.
func (s *Store) LegacyRecipientItems(orgID string, r recipient.Recipient, delays map[string]int) (rec, marker map[string]types.AttributeValue, err error) {
	it, err := marshal(recipientRecordOf(r))
	if err != nil {
		return nil, nil, err
	}
	compact(it)
	d := r.ContactDetails
	it["PK"], it["SK"] = str(orgPK(orgID)), str(recipientSK(r.CampaignID, r.RecipientID))
	it["LPK"], it["LSK"] = str(recipientsLPK(orgID, r.CampaignID)), str(recipientSK(r.CampaignID, r.RecipientID))
	it["srch"] = str(strings.ToLower(strings.TrimSpace(d.FirstName + " " + d.LastName)))
	it["st"] = str(string(r.Status))
	it["upd"] = str(gifting.FormatTime(r.UpdatedAt))
	it["srt"] = str(strings.ToLower(strings.Join([]string{d.FirstName, d.LastName, d.Email, d.Company}, sortSep)))
	if r.Feedback.Has() {
		it["fb"] = str("1")
	}
	if len(r.AssignedUsers) > 0 {
		ids := make([]string, len(r.AssignedUsers))
		for i, u := range r.AssignedUsers {
			ids[i] = u.UserID
		}
		it["au"] = str(" " + strings.Join(ids, " ") + " ")
	}
	it["ver"] = num(1)
	if gifting.LegacyPageID(r.LandingPageID) {
		it["pg"] = str(pageKey(r.LandingPageID))
	}
	legacyDue(it, orgID, r)
	if len(delays) > 0 {
		d, err := marshal(delays)
		if err != nil {
			return nil, nil, err
		}
		it["dly"] = &types.AttributeValueMemberM{Value: d}
	}
	marker, err = withKey(struct {
		RecipientID string `json:"recipientId"`
	}{r.RecipientID}, map[string]string{"PK": orgPK(orgID), "SK": recipientOfSK(r.CampaignID, r.ContactDetails.ContactID)})
	return it, marker, err
}

// NewPageIDs exposes newPageIDs to tests.
func NewPageIDs(ref gifting.PageRef) (landing, claim string) { return newPageIDs(ref) }

// NewLegacyPageIDs exposes newLegacyPageIDs to tests: the ids of
// recipients written before page ids spelled their keys.
func NewLegacyPageIDs() (landing, claim string) { return newLegacyPageIDs() }

// RecipientIDFor is the id of the recipient of contactID in campaignID.
func RecipientIDFor(campaignID, contactID string) string {
	return recipientIDFor(campaignID, contactID)
}

// PackedRecipientItemBeforeSets is the recipient item the code before
// email sets wrote for a new recipient r: its record, rendered emails and
// all, deflated without a dictionary into recipientBodyAttr, and its
// delays beside it.
func (s *Store) PackedRecipientItemBeforeSets(orgID string, r recipient.Recipient, delays map[string]int) (map[string]types.AttributeValue, error) {
	it, err := s.recipientItem(orgID, recipient.Stored{Recipient: r, Version: 1, Delays: delays})
	if err != nil {
		return nil, err
	}
	j, err := json.Marshal(recipientRecordOf(r))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(j); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	delete(it, recipientPackedAttr)
	it[recipientBodyAttr] = &types.AttributeValueMemberB{Value: b.Bytes()}
	legacyDue(it, orgID, r)
	return it, nil
}

// legacyDue sets the due attributes of recipient item it as the code
// before short due keys wrote them: the item's key spelled out in dueAt,
// and dueRef.
func legacyDue(it map[string]types.AttributeValue, orgID string, r recipient.Recipient) {
	at, ok := r.NextDue()
	if !ok {
		return
	}
	pk, sk := orgPK(orgID), recipientSK(r.CampaignID, r.RecipientID)
	it["dueShard"] = str(dueShardPK(dueShardOf(pk, sk)))
	it["dueAt"] = str(at.UTC().Format(dueTimeLayout) + "#" + pk + "#" + sk)
	it["dueKind"] = str(gifting.JobRecipientEmails)
	it["dueRef"] = str(gifting.RecipientRef(r.CampaignID, r.RecipientID))
}

// RecipientKey is the table key of a recipient.
func RecipientKey(orgID, campaignID, recipientID string) map[string]types.AttributeValue {
	return key(orgPK(orgID), recipientSK(campaignID, recipientID))
}

// ItemKey is the table key PK=pk, SK=sk.
func ItemKey(pk, sk string) map[string]types.AttributeValue { return key(pk, sk) }

// SentMessage is msg as a change record with id, written at now by orgID,
// holds it (stored) and the feed and the webhooks send it (sent), with
// the recipient it names as now (nil: gone).
func SentMessage(orgID, id string, at time.Time, msg gifting.Change, now *recipient.Recipient) (sent []byte, stored string, err error) {
	it, err := changeAttrs(orgID, id, at, []gifting.Change{msg})
	if err != nil {
		return nil, "", err
	}
	stored = it["msgs"].(*types.AttributeValueMemberL).Value[0].(*types.AttributeValueMemberS).Value
	it["SK"] = str(id)
	rec, ok := ChangeRecordOf(it)
	if !ok {
		return nil, "", fmt.Errorf("%v is not a change record", it)
	}
	found := map[webhook.RecipientKey]recipient.Recipient{}
	if now != nil {
		found[webhook.RecipientKey{CampaignID: now.CampaignID, RecipientID: now.RecipientID}] = *now
	}
	sent, err = wire.Change(webhook.Hydrate(rec.Messages, found)[0])
	return sent, stored, err
}

// BridgeOf is c in gifting's shape, the legacy model's record (tests
// write items as that model did).
var BridgeOf = contact.Carried

// FeedLimit is feedLimit, the size of a change feed source's next page.
var FeedLimit = feedLimit

// BalanceChange is one change of a wallet with writes of a test's own in
// its transaction (ChangeBalance).
type BalanceChange struct {
	OrgID string
	// Delta is added to the balance: negative for a debit.
	Delta int64
	// Entry's Type, CampaignID, RecipientID and Reason describe the change.
	Entry wallet.Entry
	// Balance, when not nil, is a balance just read (wallet.ApplyFrom).
	Balance *int64
	// Items are the other writes of the transaction, given the balance
	// after the change; called again on every attempt.
	Items func(balanceAfter int64) ([]types.TransactWriteItem, error)
	// Changes are the change messages of Items.
	Changes []gifting.Change
	// Contacts is the number of contacts Items creates.
	Contacts int64
	// Cancelled maps a cancellation caused by one of Items to an error.
	Cancelled func(reasons []types.CancellationReason) error
}

// ChangeBalance applies c as the slices apply theirs: wallet.Apply (or
// ApplyFrom) decides it and commits each plan with commitPlan, Items in
// the same transaction. It lets the storage tests drive the money path's
// commit with writes and cancellations of their own.
func (s *Store) ChangeBalance(ctx context.Context, c BalanceChange) (wallet.Wallet, wallet.Entry, error) {
	change := wallet.Change{OrgID: c.OrgID, Type: c.Entry.Type, Delta: c.Delta,
		CampaignID: c.Entry.CampaignID, RecipientID: c.Entry.RecipientID, Reason: c.Entry.Reason}
	commit := func(ctx context.Context, p wallet.Plan) error {
		w := planWrites{changes: c.Changes, contacts: c.Contacts, cancelled: c.Cancelled}
		if c.Items != nil {
			var err error
			if w.items, err = c.Items(p.After); err != nil {
				return err
			}
		}
		return s.commitPlan(ctx, p, w)
	}
	var p wallet.Plan
	var err error
	if c.Balance != nil {
		p, err = wallet.ApplyFrom(ctx, s, change, *c.Balance, commit)
	} else {
		p, err = wallet.Apply(ctx, s, change, commit)
	}
	if err != nil {
		return wallet.Wallet{}, wallet.Entry{}, err
	}
	return wallet.Wallet{OrgID: c.OrgID, Balance: p.After, UpdatedAt: p.Entry.CreatedAt}, p.Entry, nil
}
