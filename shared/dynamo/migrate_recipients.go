package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"golang.org/x/sync/errgroup"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// stepRecipientStatus names the step of `admin migrate` that gives the
// recipients of campaigns created before status keys their key
// (recipientstatus.go).
const stepRecipientStatus = "recipient-status"

// migrateRecipientStatus keys the recipients of each campaign of org not
// marked campaignStatusIndexed, then marks it: its pages by status,
// feedback or status order read the status partitions from then on. The
// walk reads the campaign's Slim partition (what a recipient's key is
// made of: its status and whether it has feedback) and sets OPK and OSK
// on each recipient whose key differs, conditioned on the status and
// feedback read: a recipient written meanwhile was keyed by that write.
// The mark is the step's progress (a campaign is walked again only when
// the walk stopped before its mark); a second run after a complete one
// reads the campaigns only. Costs: ~1 read unit per 50 recipients, a
// write unit (and one of the index) per recipient keyed.
func (s *Store) migrateRecipientStatus(ctx context.Context, orgID string) (MigrationResult, error) {
	return s.migrateRecipientKeys(ctx, orgID, recipientKeying{
		mark: campaignStatusIndexed, read: "SK, LSK, st, fb", key: (*Store).keyRecipientStatus})
}

// recipientKeying is what a step that keys every recipient of a campaign
// does: the campaign's mark it sets once done, the Slim attributes it
// reads, and how it keys one recipient from its Slim entry (reporting
// whether it wrote).
type recipientKeying struct {
	mark, read string
	key        func(s *Store, ctx context.Context, orgID, campaignID string, e item) (bool, error)
}

// migrateRecipientKeys keys the recipients of each campaign of org not
// marked k.mark (keyRecipients), then marks it.
func (s *Store) migrateRecipientKeys(ctx context.Context, orgID string, k recipientKeying) (MigrationResult, error) {
	var r MigrationResult
	items, err := s.queryPrefix(ctx, orgPK(orgID), campaignPrefix, true)
	if err != nil {
		return r, err
	}
	for _, it := range items {
		if attrS(it, k.mark) == "1" {
			continue
		}
		id := strings.TrimPrefix(attrS(it, "SK"), campaignPrefix)
		n, err := s.keyRecipients(ctx, orgID, id, k)
		r.Changed += n
		if err != nil {
			return r, err
		}
		_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), campaignSK(id)),
			UpdateExpression:          aws.String("SET " + k.mark + " = :one"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: item{":one": str("1")}})
		if err != nil && !isConditionFailed(err) { // deleted meanwhile: nothing to mark
			return r, fmt.Errorf("mark campaign %s: %w", id, err)
		}
	}
	return r, nil
}

// keyRecipients keys each recipient of campaign id from its Slim entry
// (k.key, 16 writes at a time), and returns how many it wrote.
func (s *Store) keyRecipients(ctx context.Context, orgID, id string, k recipientKeying) (int, error) {
	in := s.slimQuery(recipientsLPK(orgID, id), true)
	in.ProjectionExpression = aws.String(k.read)
	p := dynamodb.NewQueryPaginator(s.db, in)
	changed := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return changed, fmt.Errorf("query recipients of %s: %w", id, err)
		}
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(16)
		counts := make([]bool, len(out.Items))
		for i, e := range out.Items {
			g.Go(func() (err error) {
				counts[i], err = k.key(s, gctx, orgID, id, e)
				return err
			})
		}
		err = g.Wait()
		for _, c := range counts {
			if c {
				changed++
			}
		}
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// keyRecipientStatus sets the status key of the recipient of Slim entry
// e, unless it has that key or its status or feedback moved since e was
// read (the write that moved it keyed it).
func (s *Store) keyRecipientStatus(ctx context.Context, orgID, campaignID string, e item) (bool, error) {
	st, fb := attrS(e, "st"), attrS(e, "fb") != ""
	opk := recipientStatusOPK(orgID, campaignID, gifting.RecipientStatus(st), fb)
	cond := "st = :st AND (attribute_not_exists(OPK) OR OPK <> :opk OR OSK <> :osk) AND "
	if fb {
		cond += "attribute_exists(fb)"
	} else {
		cond += "attribute_not_exists(fb)"
	}
	osk := recipientCreationKey(campaignID, attrS(e, "LSK"))
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), attrS(e, "SK")),
		UpdateExpression:          aws.String("SET OPK = :opk, OSK = :osk"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeValues: item{":st": str(st), ":opk": str(opk), ":osk": str(osk)}})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("key recipient %s: %w", attrS(e, "SK"), err)
	}
	return true, nil
}

// stepRecipientNames names the step of `admin migrate` that gives the
// recipients of campaigns created before name keys their key
// (recipientnames.go).
const stepRecipientNames = "recipient-names"

// migrateRecipientNames keys the recipients of each campaign of org not
// marked campaignNamesIndexed, then marks it: its last-name pages read the
// Sort partition from then on. The key is made of the Slim entry's srt and
// LSK, what the Slim partition's sort compared, so the order is the one
// the pages had; the write is conditioned on srt as read (a legacy
// recipient rewritten meanwhile was keyed by that write). Costs as the
// status step's: ~1 read unit per 50 recipients, a write unit (and one of
// the index) per recipient keyed; a second run reads the campaigns only.
func (s *Store) migrateRecipientNames(ctx context.Context, orgID string) (MigrationResult, error) {
	return s.migrateRecipientKeys(ctx, orgID, recipientKeying{
		mark: campaignNamesIndexed, read: "SK, LSK, srt", key: (*Store).keyRecipientName})
}

// keyRecipientName sets the name key of the recipient of Slim entry e,
// unless it has that key, is gone, or its srt changed since e was read.
func (s *Store) keyRecipientName(ctx context.Context, orgID, campaignID string, e item) (bool, error) {
	srt := attrS(e, "srt")
	values := item{":ssk": str(recipientNameSSK(campaignID, srt, attrS(e, "LSK")))}
	cond := "attribute_exists(PK) AND (attribute_not_exists(SSK) OR SSK <> :ssk) AND "
	if _, ok := e["srt"]; ok {
		cond += "srt = :srt"
		values[":srt"] = str(srt)
	} else {
		cond += "attribute_not_exists(srt)"
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), attrS(e, "SK")),
		UpdateExpression: aws.String("SET SSK = :ssk"), ConditionExpression: aws.String(cond),
		ExpressionAttributeValues: values})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("key recipient %s: %w", attrS(e, "SK"), err)
	}
	return true, nil
}

// stepRecipientSearch names the step of `admin migrate` that writes the
// search entries of the recipients of campaigns created before them
// (recipientsearch.go).
const stepRecipientSearch = "recipient-search"

// migrateRecipientSearch writes the word entries of the recipients of
// each campaign of org not marked campaignSearchIndexed, from their Slim
// entries' search text, then marks it: its searches read the entries from
// then on. Putting an entry again changes nothing, so a walk stopped
// before its mark is simply walked again. Costs: ~1 read unit per 50
// recipients, a write unit per entry (~2 a recipient).
func (s *Store) migrateRecipientSearch(ctx context.Context, orgID string) (MigrationResult, error) {
	return s.migrateRecipientKeys(ctx, orgID, recipientKeying{
		mark: campaignSearchIndexed, read: "SK, LSK, srch", key: (*Store).keyRecipientSearch})
}

// keyRecipientSearch puts the word entries of the recipient of Slim entry
// e (its srch: the lower-cased "first last" every recipient item holds).
func (s *Store) keyRecipientSearch(ctx context.Context, orgID, campaignID string, e item) (bool, error) {
	words := recipient.ContactDetails{FirstName: attrS(e, "srch")}.SearchWords()
	entries := wordItems(orgID, campaignID, attrS(e, "SK"), attrS(e, "LSK"), words)
	return len(entries) > 0, s.writeWordItems(ctx, entries, false, nil)
}
