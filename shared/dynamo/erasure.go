package dynamo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The erasure of a person (shared/erasure; docs/erasure.md): its record,
// due while it runs, and the reads and writes of its steps. What replaces
// what is erasure's; this file finds the items and writes the result.

// erasureSK is the record of a contact's erasure.
func erasureSK(contactID string) string { return "ERASURE#" + contactID }

// erasedAttr marks a recipient whose person was erased: its pages answer
// 410 (RecipientPage).
const erasedAttr = "ers"

// Erasure reads the record of contactID's erasure.
func (s *Store) Erasure(ctx context.Context, orgID, contactID string) (erasure.Job, bool, error) {
	var rec struct {
		Job string `json:"job"`
		Ver int64  `json:"ver"`
	}
	found, err := s.get(ctx, orgPK(orgID), erasureSK(contactID), &rec)
	if err != nil || !found {
		return erasure.Job{}, false, err
	}
	var j erasure.Job
	if err := json.Unmarshal([]byte(rec.Job), &j); err != nil {
		return j, false, fmt.Errorf("erasure record: %w", err)
	}
	j.Version = rec.Ver
	if j.Erased == nil {
		j.Erased = map[string]int{}
	}
	return j, true, nil
}

// SaveErasure writes j at its version; while it runs the record is due a
// lease on, so the scheduler resumes it when the run that holds it dies.
func (s *Store) SaveErasure(ctx context.Context, orgID string, j erasure.Job) error {
	body, err := json.Marshal(j)
	if err != nil {
		return err
	}
	pk, sk := orgPK(orgID), erasureSK(j.ContactID)
	it := item{"PK": str(pk), "SK": str(sk), "job": str(string(body)), "ver": num(j.Version + 1)}
	if j.Status != erasure.Done {
		for k, v := range dueAttrs(erasure.JobErase, j.ContactID, pk, sk, s.Now().Add(DueLease)) {
			it[k] = str(v)
		}
	}
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: it}
	if j.Version == 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		in.ConditionExpression = aws.String("ver = :ver")
		in.ExpressionAttributeValues = item{":ver": num(j.Version)}
	}
	_, err = s.db.PutItem(ctx, in)
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return erasure.ErrChanged
	}
	if err != nil {
		return fmt.Errorf("save erasure: %w", err)
	}
	return nil
}

// ErasureSubject reads the contact, live or deleted, and its recipients:
// the recipient of each campaign (live or deleted) at the id derived from
// the campaign and the contact.
func (s *Store) ErasureSubject(ctx context.Context, orgID, contactID string) (gifting.Contact, bool, []recipient.Recipient, error) {
	org := orgPK(orgID)
	got, err := s.batchGet(ctx, []item{key(org, contactSK(contactID)), key(org, deletedContactSK(contactID))})
	if err != nil {
		return gifting.Contact{}, false, nil, err
	}
	var c gifting.Contact
	var live, found bool
	for _, it := range got {
		sc, err := decodeContact(it)
		if err != nil {
			return c, false, nil, err
		}
		// A bare slot at the contact's key (its email's, once it is
		// deleted) decodes without an id.
		if sk := attrS(it, "SK"); sk == contactSK(contactID) && sc.ContactID == contactID {
			c, live, found = sc.bridge(), true, true
		} else if sk == deletedContactSK(contactID) && !live {
			c, found = sc.bridge(), true
		}
	}
	if !found {
		return c, false, nil, erasure.ErrNoContact
	}
	rs, err := s.subjectRecipients(ctx, orgID, contactID)
	return c, live, rs, err
}

// subjectRecipients reads the recipients contactID became, in every campaign
// of the organization: O(campaigns), keys only, then one BatchGet per 50
// campaigns (the recipient's derived key and its legacy marker), and one
// more for the legacy recipients the markers name.
func (s *Store) subjectRecipients(ctx context.Context, orgID, contactID string) ([]recipient.Recipient, error) {
	var keys []item
	for _, prefix := range []string{campaignPrefix, deletedCampaignPrefix} {
		var after string
		for {
			ids, last, err := s.keyPage(ctx, orgPK(orgID), prefix, after, 1000)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				keys = append(keys, key(orgPK(orgID), recipientSK(id, recipientIDFor(id, contactID))),
					key(orgPK(orgID), recipientOfSK(id, contactID)))
			}
			if after = last; last == "" {
				break
			}
		}
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	// A recipient written before ids were derived has a random id, named
	// by its RCPTOF marker.
	var legacy []item
	for _, it := range got {
		if sk := attrS(it, "SK"); strings.HasPrefix(sk, "RCPTOF#") {
			campaignID, _, _ := strings.Cut(strings.TrimPrefix(sk, "RCPTOF#"), "#")
			legacy = append(legacy, key(orgPK(orgID), recipientSK(campaignID, attrS(it, "recipientId"))))
		}
	}
	if len(legacy) > 0 {
		more, err := s.batchGet(ctx, legacy)
		if err != nil {
			return nil, err
		}
		got = append(got, more...)
	}
	var rs []recipient.Recipient
	for _, it := range got {
		if it[recipientGoneAttr] != nil || !strings.HasPrefix(attrS(it, "SK"), recipientPrefix) {
			continue
		}
		sr, err := decodeRecipient(it)
		if err != nil {
			return nil, err
		}
		rs = append(rs, sr.Recipient)
	}
	return rs, nil
}

// EraseSlice does one slice of step kind.
func (s *Store) EraseSlice(ctx context.Context, orgID string, j erasure.Job, kind string, sc *erasure.Scrubber) (int, string, error) {
	org := orgPK(orgID)
	switch kind {
	case erasure.KindContact:
		var markers []item
		for _, e := range j.Person.Emails {
			markers = append(markers, key(org, emailSK(e))) // legacy markers: their key is the address
		}
		m, err := s.deleteKeys(ctx, markers)
		if err != nil {
			return 0, "", err
		}
		n, _, err := s.scrubKeys(ctx, []item{key(org, deletedContactSK(j.ContactID))}, sc)
		return n + m, "", err
	case erasure.KindRecipient:
		return s.eraseRecipients(ctx, orgID, j.Recipients, sc)
	case erasure.KindOrder:
		return s.scrubSince(ctx, org, orderPrefix, j, sc)
	case erasure.KindAudienceMember:
		return s.eraseMembers(ctx, orgID, j.ContactID, sc)
	case erasure.KindMessage:
		keys := make([]item, len(j.Messages))
		for i, id := range j.Messages {
			keys[i] = key(messagePK(id), messageSK)
		}
		return s.scrubKeys(ctx, keys, sc)
	case erasure.KindSuppression:
		// Both keys: an entry written before the suppression key is under
		// the legacy one until the migration step rekeys it.
		var keys []item
		for _, e := range j.Person.Emails {
			keyed, legacy, err := s.suppressionKeys(ctx, orgID, e)
			if err != nil {
				return 0, "", err
			}
			keys = append(keys, key(org, legacy))
			if keyed != "" {
				keys = append(keys, key(org, keyed))
			}
		}
		return s.scrubKeys(ctx, keys, sc)
	case erasure.KindChangeRecord:
		return s.scrubRange(ctx, changesPK(orgID), "", j.Cursor, sc)
	case erasure.KindLedgerEntry:
		return s.scrubSince(ctx, org, ledgerPrefix, j, sc)
	case erasure.KindWebhookDelivery:
		return s.scrubRanges(ctx, org, []string{"WHMSG#", "WHLOG#"}, j.Cursor, sc)
	case erasure.KindIdempotency:
		return s.scrubRange(ctx, org, "IDEM#", j.Cursor, sc)
	case erasure.KindImportRecord:
		return s.scrubRange(ctx, org, "IMPORT#", j.Cursor, sc)
	case erasure.KindSandboxEmail:
		if !gifting.IsSandboxOrg(orgID) {
			return 0, "", nil // only a sandbox captures emails
		}
		return s.scrubRange(ctx, org, sandboxEmailPrefix, j.Cursor, sc)
	}
	return 0, "", fmt.Errorf("unknown erasure step %q", kind)
}

// scrubSince is a walk of the records under prefix, keyed by ids of their
// time (prefix + id), from where j's records can be about the person on
// (erasure.Job.RecordsFrom).
func (s *Store) scrubSince(ctx context.Context, pk, prefix string, j erasure.Job, sc *erasure.Scrubber) (int, string, error) {
	from, walk := j.RecordsFrom()
	if !walk {
		return 0, "", nil
	}
	cursor := j.Cursor
	if cursor == "" && !from.IsZero() {
		cursor = prefix + gifting.FirstIDAt(from) // exclusive: before every record of from's millisecond
	}
	return s.scrubRange(ctx, pk, prefix, cursor, sc)
}

// eraseRecipients writes each recipient as erasure.Recipient makes it,
// marked erased; one already marked is left alone.
func (s *Store) eraseRecipients(ctx context.Context, orgID string, refs []erasure.RecipientRef, sc *erasure.Scrubber) (int, string, error) {
	n := 0
	for _, ref := range refs {
		out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
			Key: key(orgPK(orgID), recipientSK(ref.CampaignID, ref.RecipientID))})
		if err != nil {
			return n, "", fmt.Errorf("get recipient: %w", err)
		}
		if out.Item == nil || out.Item[erasedAttr] != nil {
			continue
		}
		sr, err := decodeRecipient(out.Item)
		if err != nil {
			return n, "", err
		}
		// Its search entries' keys hold its name words: they go before
		// the recipient is marked (a run that stops between does it again),
		// keyed by its stored LSK (a legacy recipient's is its SK, as the
		// migration step keyed them).
		entries := wordItems(orgID, ref.CampaignID, attrS(out.Item, "SK"), attrS(out.Item, "LSK"), sr.Recipient.ContactDetails.SearchWords())
		if err := s.writeWordItems(ctx, entries, true, nil); err != nil {
			return n, "", err
		}
		sr.Recipient = erasure.Recipient(sr.Recipient, sc)
		it, err := s.recipientItem(orgID, sr)
		if err != nil {
			return n, "", err
		}
		it[erasedAttr] = str("1")
		it["ver"] = num(sr.Version + 1)
		if err := s.putAtVersion(ctx, it, out.Item["ver"]); err != nil {
			return n, "", err
		}
		n++
	}
	return n, "", nil
}

// eraseMembers scrubs the person's member item in every audience and
// deletes their member entries (AMIDX#), whose keys hold their words: the
// member stays in the audience's pages, and no search finds it.
func (s *Store) eraseMembers(ctx context.Context, orgID, contactID string, sc *erasure.Scrubber) (int, string, error) {
	auds, _, err := s.keyPage(ctx, orgPK(orgID), "AUDIENCE#", "", 10000)
	if err != nil {
		return 0, "", err
	}
	n := 0
	for _, aud := range auds {
		k, _, err := s.scrubKeys(ctx, []item{key(orgPK(orgID), audienceMemberSK(aud, contactID))}, sc)
		if err != nil {
			return n, "", err
		}
		n += k
		entries, err := s.queryPrefixHolding(ctx, orgPK(orgID), memberEntryPrefix(aud), contactID)
		if err != nil {
			return n, "", err
		}
		if _, err := s.deleteKeys(ctx, entries); err != nil {
			return n, "", err
		}
	}
	return n, "", nil
}
