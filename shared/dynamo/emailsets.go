package dynamo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// A recipient's emails are rendered from its template's text whenever the
// recipient is read (recipient.Recipient.RenderEmails), not stored on it:
// five rendered emails made up two thirds of a recipient's record, and
// a template's HTML has no bound but the item size, so storing them made
// every write of every recipient cost as many write units as its template
// had kilobytes.
//
// The text a recipient is rendered from must not change under it, though
// its template may be edited or deleted: so the emails of a template, as a
// recipient is built from them, are copied once into an email set, an
// item named by a hash of its content (emailSetID) in the organization's
// partition, and the recipient names its set (recipient.Stored.EmailSet).
// A set is never changed or deleted, so every process may keep the sets
// it has read or written (Store.sets) and trust them for ever: reading a
// recipient costs a read of its set only the first time a process meets
// that set.
//
// A set is written before the first recipient that names it
// (ensureEmailSet), with a plain put: it is the same item whoever writes
// it. Recipients written before sets existed carry their rendered emails
// and no set; they are read as they are.

// emailSetCacheSize bounds the sets a process keeps.
const emailSetCacheSize = 512

// newEmailSetCache returns an empty cache of email sets by
// emailSetCacheKey.
func newEmailSetCache() *lru.Cache[string, map[string]gifting.EmailTemplate] {
	c, _ := lru.New[string, map[string]gifting.EmailTemplate](emailSetCacheSize) // fails only for a size below 1
	return c
}

func emailSetCacheKey(orgID, id string) string { return orgID + "\x00" + id }

// emailSetID names the email set of emails: 26 lower-case base32
// characters of a SHA-256 of their JSON (whose map keys encoding/json
// sorts), so the same emails always make the same id.
func emailSetID(emails map[string]gifting.EmailTemplate) (string, error) {
	j, err := json.Marshal(emails)
	if err != nil {
		return "", fmt.Errorf("email set: %w", err)
	}
	return digestID(j), nil
}

// emailSetItem is the stored form of an email set.
type emailSetItem struct {
	Emails map[string]gifting.EmailTemplate `json:"emails"`
}

// ensureEmailSet makes sure the email set of kit's emails exists in orgID
// and names it in kit.EmailSet (left "" for a kit without emails). It
// writes the set unless this process has read or written it before: one
// put, the first time a process builds recipients from a template.
func (s *Store) ensureEmailSet(ctx context.Context, orgID string, kit *recipient.Kit) error {
	if len(kit.Emails) == 0 {
		return nil
	}
	id, err := emailSetID(kit.Emails)
	if err != nil {
		return err
	}
	if !s.sets.Contains(emailSetCacheKey(orgID, id)) {
		it, err := marshal(emailSetItem{Emails: kit.Emails})
		if err != nil {
			return err
		}
		it["PK"], it["SK"] = str(orgPK(orgID)), str(emailSetSK(id))
		if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it}); err != nil {
			return fmt.Errorf("write email set: %w", err)
		}
		s.sets.Add(emailSetCacheKey(orgID, id), kit.Emails)
	}
	kit.EmailSet = id
	return nil
}

// emailSet returns the emails of set id of orgID, from this process's
// cache or else read (strongly consistent: the set may have been written
// a moment before). A set that is not there (none was ever deleted) is an
// error.
func (s *Store) emailSet(ctx context.Context, orgID, id string) (map[string]gifting.EmailTemplate, error) {
	if emails, ok := s.sets.Get(emailSetCacheKey(orgID, id)); ok {
		return emails, nil
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), emailSetSK(id)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("read email set: %w", err)
	}
	if out.Item == nil {
		return nil, fmt.Errorf("email set %s of %s is missing", id, orgID)
	}
	var set emailSetItem
	if err := unmarshal(out.Item, &set); err != nil {
		return nil, err
	}
	s.sets.Add(emailSetCacheKey(orgID, id), set.Emails)
	return set.Emails, nil
}

// withEmails renders the emails of sr from its email set, and sets its
// delays from the set when the item did not carry them. A recipient
// without a set (written before sets) keeps the emails it carries, and
// gets the service's shipped email (recipient.ShippedEmail), which it
// cannot carry.
func (s *Store) withEmails(ctx context.Context, sr *recipient.Stored) error {
	if sr.EmailSet == "" {
		sr.RenderEmails(nil)
		return nil
	}
	emails, err := s.emailSet(ctx, sr.OrganizationID, sr.EmailSet)
	if err != nil {
		return err
	}
	sr.RenderEmails(emails)
	if len(sr.Delays) == 0 {
		sr.Delays = recipient.EventDelays(emails)
	}
	return nil
}

// readRecipient decodes a recipient item and renders its emails
// (withEmails): the form every reader outside the write path wants.
func (s *Store) readRecipient(ctx context.Context, it item) (recipient.Stored, error) {
	sr, err := decodeRecipient(it)
	if err != nil {
		return sr, err
	}
	return sr, s.withEmails(ctx, &sr)
}
