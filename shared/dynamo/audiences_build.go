package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/gifting"
)

// The storage of an audience's build: what a slice reads of the contacts,
// and the commits of what shared/audience decided (Chunks, Plan). Each
// commit is conditioned on the build's cursor as read, so a slice that
// runs twice commits once; the final one, which makes the audience ready
// in one transaction with its audience.ready change record holding the
// audience as written, also on the audience's version: edits of its name,
// description and tags may land at any time during a build
// (CommitAudienceEdit), and one in between makes the slice read again.

// memberIndexUnits are the write units of a member's index entries: its
// Slim and Order entries.
const memberIndexUnits = 2

// buildCommitUnits is about the most write units one commit of a build
// lands at once: each member twice in the transaction, and its index
// entries. Its member entries (memberEntries) go before, in batches of 25.
const buildCommitUnits = (2 + memberIndexUnits) * audience.MembersPerCommit

// matchAttributes are the contact attributes a build reads (drv and
// sources put back the address entry the item leaves out, see
// contactAttrs).
var matchAttributes = []string{"SK", "contactId", "mailId", "firstName", "lastName", "fullName", "jobTitle", "companyName",
	"address", "addresses", "createdAt", "updatedAt", "isDeleted", "drv", "sources"}

// matchProjection is the projection of matchAttributes, every name through
// a placeholder (some are reserved words).
func matchProjection() (*string, map[string]string) {
	names := make(map[string]string, len(matchAttributes))
	refs := make([]string, len(matchAttributes))
	for i, a := range matchAttributes {
		refs[i] = fmt.Sprintf("#a%d", i)
		names[refs[i]] = a
	}
	return aws.String(strings.Join(refs, ", ")), names
}

// BuildContacts reads the page of org's contacts after cursor, at most
// limit (fewer when the page reaches 1 MB), only what matching and a
// member's snapshot read: a contact's emails, sources and campaigns are
// most of its size. The contacts are the contact area's items, read and
// decoded as it reads them (contactRange, decodeContact).
func (s *Store) BuildContacts(ctx context.Context, orgID, cursor string, limit int) (audience.ContactPage, error) {
	in := s.contactRange(orgID, true)
	in.Limit = aws.Int32(int32(limit))
	in.ProjectionExpression, in.ExpressionAttributeNames = matchProjection()
	if cursor != "" {
		in.ExclusiveStartKey = key(orgPK(orgID), contactSK(cursor))
	}
	res, err := s.db.Query(ctx, in)
	if err != nil {
		return audience.ContactPage{}, err
	}
	page := audience.ContactPage{Contacts: make([]audience.Contact, 0, len(res.Items)), Last: res.LastEvaluatedKey == nil}
	for _, it := range res.Items {
		sc, err := decodeContact(it)
		if err != nil {
			return audience.ContactPage{}, err
		}
		c := sc.bridge()
		page.Contacts = append(page.Contacts, audience.Contact{
			Cursor: strings.TrimPrefix(attrS(it, "SK"), contactPrefix), ContactID: c.ContactID, MailID: c.MailID,
			FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, JobTitle: c.JobTitle,
			CompanyName: c.CompanyName, Address: c.Address, Addresses: c.Addresses, IsDeleted: c.IsDeleted,
			CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt,
		})
	}
	return page, nil
}

// buildPace paces one slice of a build.
type buildPace struct{ *rate.Limiter }

func (p buildPace) Wait(ctx context.Context, units int) error {
	return waitUnits(ctx, p.Limiter, units)
}

// BuildPace is the pace of one slice of a build. The members go to the
// organization's partition, as a launch's recipients do, but a commit
// lands up to buildCommitUnits there at once: paced at the launch's rate
// less that, a build stays under it in any second (and so under the
// partition key's 1,000).
func (s *Store) BuildPace() audience.Pace {
	return buildPace{rate.NewLimiter(rate.Limit(max(s.launchRate-buildCommitUnits, s.launchRate/4)), launchWriteBurst)}
}

// CommitBuild writes c's members and moves the audience's build from
// c.From to c.To with its totals, in one transaction (with, when final,
// the audience ready and its change record): audience.ErrBuildMoved when
// a condition fails. With a pace, it first writes the members' entries
// (memberEntries) request by request as the pace allows, then waits for
// the write units of the transaction (each member twice, its Slim and
// Order entries).
func (s *Store) CommitBuild(ctx context.Context, c audience.Commit, pace audience.Pace) error {
	members := make([]item, len(c.Members))
	var entries []item
	units := 0
	for i, m := range c.Members {
		it, err := memberPut(c.OrgID, m)
		if err != nil {
			return err
		}
		members[i], units = it, units+2*writeUnits(it)+memberIndexUnits
		entries = append(entries, memberEntries(c.OrgID, m)...)
	}
	// The entries go first, paced request by request (each entry is one
	// write unit): a commit that fails after them leaves entries the
	// slice's next run writes again (the same keys), never a member
	// without its entries.
	if err := s.putMemberEntries(ctx, entries, pace); err != nil {
		return err
	}
	if pace != nil {
		if err := pace.Wait(ctx, units); err != nil {
			return fmt.Errorf("audience build pace: %w", err)
		}
	}
	for attempt := 1; ; attempt++ {
		var tx txn
		for _, m := range members {
			tx.add("", types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: m}})
		}
		tx.add(condAudience, s.buildCommit(c))
		if c.Final {
			change, err := s.changePut(c.OrgID, gifting.NewChange(gifting.ChangeAudienceReady, c.Ready))
			if err != nil {
				return err
			}
			tx.add("", change)
		}
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
		switch {
		case err == nil:
			return nil
		case tx.failed(cancellationReasons(err), condAudience):
			return audience.ErrBuildMoved
		case !retryable(err) || attempt >= maxAttempts:
			return fmt.Errorf("commit audience %s: %w", c.AudienceID, err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// buildCommit is the transaction item of CommitBuild that moves the
// audience: conditioned on it building at c.From, and when final on its
// version too.
func (s *Store) buildCommit(c audience.Commit) types.TransactWriteItem {
	now := c.At.Format(timeLayout)
	set := "updatedAt = :now, buildFailures = :zero, metadata.contactsScanned = metadata.contactsScanned + :scanned"
	values := item{
		":n": num(int64(len(c.Members))), ":credits": num(c.Credits), ":scanned": num(c.Scanned),
		":now": str(now), ":zero": num(0), ":building": str(string(audience.Building)),
	}
	if c.To != c.From {
		set += ", buildCursor = :to"
		values[":to"] = str(c.To)
	}
	done := ""
	if c.Final {
		set += ", #st = :ready, metadata.buildFinishedAt = :now"
		values[":ready"] = str(string(c.Ready.Status))
		done = " " + dueRemove // built: out of the due index
	} else if c.Due {
		// Progress: the tick leaves the build to its job a lease more.
		set += ", dueAt = :due"
		values[":due"] = str(dueSK(c.At.Add(DueLease), orgPK(c.OrgID), audienceSK(c.AudienceID)))
	}
	cond := "#st = :building AND attribute_not_exists(buildCursor)"
	if c.From != "" {
		cond = "#st = :building AND buildCursor = :from"
		values[":from"] = str(c.From)
	}
	if c.Final {
		cond += " AND " + versionIs(c.Version, values)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(c.OrgID), audienceSK(c.AudienceID)),
		UpdateExpression:          aws.String("SET " + set + " ADD totalMatch :n, creditRequired :credits" + done),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: values,
	}}
}

// versionIs is the condition that an item's updatedAt is version ("": it
// has none), adding :seen to values.
func versionIs(version string, values item) string {
	if version == "" {
		return "attribute_not_exists(updatedAt)"
	}
	values[":seen"] = str(version)
	return "updatedAt = :seen"
}

// CommitBuildFailure adds one to the failed slices of audience id's build,
// conditioned on it building (audience.ErrNotBuilding otherwise), and
// returns them.
func (s *Store) CommitBuildFailure(ctx context.Context, orgID, id string) (int, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("ADD buildFailures :one"),
		ConditionExpression:       aws.String("#st = :building"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{":one": num(1), ":building": str(string(audience.Building))},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, notBuilding(err, id)
	}
	var n struct {
		F int `json:"buildFailures"`
	}
	err = unmarshal(out.Attributes, &n)
	return n.F, err
}

// notBuilding maps a failed condition on the audience building to
// audience.ErrNotBuilding.
func notBuilding(err error, id string) error {
	if isConditionFailed(err) {
		return audience.ErrNotBuilding
	}
	return fmt.Errorf("note build failure of %s: %w", id, err)
}

// CommitFailed writes a, failed, out of the due index, in one transaction
// with its audience.failed change record, conditioned on it building at
// version (audience.ErrChanged otherwise).
func (s *Store) CommitFailed(ctx context.Context, a audience.Audience, version string) error {
	values := item{":failed": str(string(a.Status)), ":now": str(a.UpdatedAt.Format(timeLayout)),
		":reason": str(a.Meta.Error), ":building": str(string(audience.Building))}
	var tx txn
	tx.add(condAudience, types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(a.OrganizationID), audienceSK(a.ID)),
		UpdateExpression:          aws.String("SET #st = :failed, updatedAt = :now, metadata.buildFinishedAt = :now, metadata.#err = :reason " + dueRemove),
		ConditionExpression:       aws.String("#st = :building AND " + versionIs(version, values)),
		ExpressionAttributeNames:  map[string]string{"#st": "status", "#err": "error"},
		ExpressionAttributeValues: values,
	}})
	change, err := s.changePut(a.OrganizationID, gifting.NewChange(gifting.ChangeAudienceFailed, a))
	if err != nil {
		return err
	}
	tx.add("", change)
	return failedMoved(tx, s.transactRetrying(ctx, tx.items), a.ID)
}

// failedMoved maps CommitFailed's cancellation by the audience's
// condition to audience.ErrChanged.
func failedMoved(tx txn, err error, id string) error {
	switch {
	case err == nil:
		return nil
	case tx.failed(cancellationReasons(err), condAudience):
		return audience.ErrChanged
	}
	return fmt.Errorf("fail audience %s: %w", id, err)
}

// BuildProgressed pushes audience id's due time a lease on.
func (s *Store) BuildProgressed(ctx context.Context, orgID, id string) error {
	return s.dueProgressed(ctx, orgPK(orgID), audienceSK(id), "")
}

// BuildEnded takes audience id out of the due index.
func (s *Store) BuildEnded(ctx context.Context, orgID, id string) error {
	return s.dueDone(ctx, orgPK(orgID), audienceSK(id))
}

// DeleteMembers removes up to limit members of audience id (reading
// their keys only), then, once none is left, up to the rest of limit of
// their entries (memberEntries), and returns how many items it removed:
// fewer than limit when both are gone.
func (s *Store) DeleteMembers(ctx context.Context, orgID, id string, limit int) (int, error) {
	n, err := s.deleteUpTo(ctx, orgID, audienceMemberPrefix(id), limit)
	if err != nil || n == limit {
		return n, err
	}
	m, err := s.deleteUpTo(ctx, orgID, memberEntryPrefix(id), limit-n)
	return n + m, err
}

// CommitCleared ends a rebuild's clearing of audience id, conditioned on
// it building and clearing (audience.ErrBuildMoved otherwise).
func (s *Store) CommitCleared(ctx context.Context, orgID, id string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("REMOVE buildClearing"),
		ConditionExpression:       aws.String("#st = :building AND buildClearing = :true"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{":building": str(string(audience.Building)), ":true": &types.AttributeValueMemberBOOL{Value: true}},
	})
	return clearingMoved(err)
}

// clearingMoved maps CommitCleared's failed condition to
// audience.ErrBuildMoved.
func clearingMoved(err error) error {
	if isConditionFailed(err) {
		return audience.ErrBuildMoved
	}
	return err
}

// CommitPurged deletes deleted audience id's tombstone, which takes it out
// of the due index.
func (s *Store) CommitPurged(ctx context.Context, orgID, id string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), deletedAudienceSK(id))})
	if err != nil {
		return fmt.Errorf("remove audience tombstone %s: %w", id, err)
	}
	return nil
}
