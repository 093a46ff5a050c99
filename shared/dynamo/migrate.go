package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A migration step upgrades one organization's data written by an older
// model. Steps are idempotent (a second run finds nothing to change) and
// resumable (progress is kept per organization in a MIGRATE#<step> item),
// so `admin migrate` can be stopped and run again at any time.
type migrationStep struct {
	name string
	run  func(s *Store, ctx context.Context, orgID string) (MigrationResult, error)
}

// migrationSteps are the steps, in the order Migrate runs them. A function
// rather than a variable filled by init functions: only what calls Migrate
// (the operator CLI) links the steps' code, not every Lambda binary.
func migrationSteps() []migrationStep {
	return []migrationStep{
		{name: stepContacts, run: (*Store).migrateContacts},
		{name: stepSearch, run: (*Store).migrateSearch},
		{name: stepWebhookSecrets, run: (*Store).migrateWebhookSecrets},
		{name: stepAudienceMembers, run: (*Store).migrateAudienceMembers},
		{name: stepLedgerIndex, run: (*Store).migrateLedgerIndex},
		{name: stepRecipientStatus, run: (*Store).migrateRecipientStatus},
		{name: stepRecipientNames, run: (*Store).migrateRecipientNames},
		{name: stepRecipientSearch, run: (*Store).migrateRecipientSearch},
		{name: stepServiceOrders, run: (*Store).migrateServiceOrders},
		{name: stepOrgRegistry, run: (*Store).migrateOrgRegistry},
		{name: stepSuppressionKeys, run: (*Store).migrateSuppressionKeys},
	}
}

// MigrationSteps returns the names of the steps, in the order Migrate runs
// them.
func MigrationSteps() []string {
	steps := migrationSteps()
	names := make([]string, len(steps))
	for i, m := range steps {
		names[i] = m.name
	}
	return names
}

// MigrationResult is what one step did for one organization.
type MigrationResult struct {
	OrganizationID string `json:"organizationId"`
	Step           string `json:"step"`
	// Changed counts the items the step upgraded in this run; 0 on a run
	// after a complete one.
	Changed int `json:"changed"`
	// Fixed lists the counters the step found wrong and corrected.
	Fixed []string `json:"fixed,omitempty"`
	// Problems lists what the step could not upgrade (left as it was).
	Problems []string `json:"problems,omitempty"`
}

// Migrate runs the steps named in only (every registered step when empty)
// for the organization orgID.
func (s *Store) Migrate(ctx context.Context, orgID string, only []string) ([]MigrationResult, error) {
	var out []MigrationResult
	for _, m := range migrationSteps() {
		if len(only) > 0 && !slices.Contains(only, m.name) {
			continue
		}
		r, err := m.run(s, ctx, orgID)
		r.OrganizationID, r.Step = orgID, m.name
		out = append(out, r)
		if err != nil {
			return out, fmt.Errorf("migrate %s, step %s: %w", orgID, m.name, err)
		}
	}
	return out, nil
}

// migrationCursor is a step's progress in one organization.
type migrationCursor struct {
	// After is the sort key the step continues after.
	After string `json:"after"`
	// Done is set when the walk reached the end once.
	Done bool `json:"done"`
	// Form is, for the contacts-search step, the form of the search
	// entries the walk wrote (searchForm): a step done in an older form
	// walks again.
	Form int `json:"form,omitempty"`
}

// migrationProgress reads a step's cursor in org.
func (s *Store) migrationProgress(ctx context.Context, orgID, step string) (migrationCursor, error) {
	var c migrationCursor
	_, err := s.get(ctx, orgPK(orgID), migrateSK(step), &c)
	return c, err
}

// saveMigrationProgress records a step's cursor in org.
func (s *Store) saveMigrationProgress(ctx context.Context, orgID, step string, c migrationCursor) error {
	it, err := withKey(c, map[string]string{"PK": orgPK(orgID), "SK": migrateSK(step)})
	if err != nil {
		return err
	}
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it}); err != nil {
		return fmt.Errorf("save migration progress: %w", err)
	}
	return nil
}

// stepContacts names the contacts step of `admin migrate`.
const stepContacts = "contacts-slots"

// migrateContacts upgrades org's contacts written before slots: each one
// takes its email's slot (an alias item naming it, or the holder of a
// free slot), loses its EMAIL# marker, moves its first list's membership
// from the MEMBER# item onto the item (its Slim sort key becomes
// <first list>#<id>) and is rewritten in the compact form, all in one
// transaction per contact. Then it recounts the contacts counter and each
// list's count from what is stored, and corrects those that differ (which
// also repairs counts left short by an import that stopped between its
// writes and its counter update).
func (s *Store) migrateContacts(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	cur, err := s.migrationProgress(ctx, orgID, stepContacts)
	if err != nil {
		return r, err
	}
	for !cur.Done {
		in := s.contactRange(orgID, true)
		in.ConsistentRead = aws.Bool(true)
		in.Limit = aws.Int32(100)
		if cur.After != "" {
			in.ExclusiveStartKey = key(orgPK(orgID), cur.After)
		}
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return r, fmt.Errorf("query contacts: %w", err)
		}
		for _, it := range res.Items {
			c, err := decodeContact(it)
			if err != nil {
				return r, err
			}
			if c.ContactID == "" || !c.legacy() {
				continue
			}
			changed, problem, err := s.upgradeContact(ctx, orgID, c)
			if err != nil {
				return r, err
			}
			if changed {
				r.Changed++
			}
			if problem != "" {
				r.Problems = append(r.Problems, problem)
			}
		}
		if len(res.Items) > 0 {
			cur.After = attrS(res.Items[len(res.Items)-1], "SK")
		}
		cur.Done = res.LastEvaluatedKey == nil
		if err := s.saveMigrationProgress(ctx, orgID, stepContacts, cur); err != nil {
			return r, err
		}
	}
	fixed, err := s.recountContacts(ctx, orgID)
	r.Fixed = fixed
	return r, err
}

// upgradeContact writes the legacy contact c in the slot model (see
// migrateContacts). A concurrent change of the contact makes it read again;
// an email whose slot another contact holds is a problem to report, and
// the contact is left as it was.
func (s *Store) upgradeContact(ctx context.Context, orgID string, c storedContact) (changed bool, problem string, err error) {
	for attempt := 1; ; attempt++ {
		got, err := s.batchGet(ctx, slotKeys(orgID, c.MailID))
		if err != nil {
			return false, "", err
		}
		bySK := bySortKey(got)
		slotSK := contactSK(slotID(orgID, c.MailID))
		var tx txn
		next := c.contact()
		next.Stored.Place = contactLSK("", c.ContactID)
		// The search entries move from the legacy place (if the
		// contacts-search step wrote them already) to the new one.
		next.Stored.Search = ""
		writes, err := s.contactWrites(orgID, next)
		if err != nil {
			return false, "", err
		}
		tx.add("", writes...)
		tx.add("", s.entryDeletes(orgID, c.ContactID, c.LSK, c.Sx, c.Srch, nil)...)
		if len(c.ListIDs) > 0 {
			tx.add("", types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table,
				Key: key(orgPK(orgID), memberSK(c.ListIDs[0], c.ContactID))}})
		}
		if m := bySK[emailSK(c.MailID)]; m != nil {
			tx.add("", s.markerDelete(orgID, c.MailID, c.ContactID))
		}
		switch slot := bySK[slotSK]; {
		case slot == nil:
			tx.add("", types.TransactWriteItem{Put: &types.Put{TableName: &s.table,
				Item:                item{"PK": str(orgPK(orgID)), "SK": str(slotSK), "holder": str(c.ContactID)},
				ConditionExpression: aws.String("attribute_not_exists(PK)")}})
		case attrS(slot, "holder") == "":
			tx.add("", s.slotClaim(orgID, c.MailID, c.ContactID))
		case attrS(slot, "holder") != c.ContactID:
			return false, fmt.Sprintf("contact %s: its email's slot is held by contact %s", c.ContactID, attrS(slot, "holder")), nil
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
		if err == nil {
			return true, "", nil
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return false, "", fmt.Errorf("upgrade contact %s: %w", c.ContactID, err)
		}
		fresh, err := s.contact(ctx, orgID, c.ContactID)
		if err != nil {
			return false, "", err
		}
		if !fresh.legacy() {
			return false, "", nil
		}
		c = fresh
	}
}

// recountContacts counts org's live contacts (their Slim entries) and each
// list's members (its first-list Slim range and its MEMBER# items),
// reading keys only, and sets the counters that differ. It returns the
// corrections made. Writes made while it counts can make it set a counter
// that is off by them: run it when no import is in flight.
func (s *Store) recountContacts(ctx context.Context, orgID string) ([]string, error) {
	var fixed []string
	n, err := s.countQuery(ctx, s.slimQuery(contactsLPK(orgID), false))
	if err != nil {
		return nil, err
	}
	counted, onWallet, err := s.contactsCounts(ctx, orgID)
	if err != nil {
		return nil, err
	}
	// A chunk left open (its import died before its count) is closed:
	// the count is set from the index now, so it is exact again.
	if err := s.setCount(ctx, key(orgPK(orgID), counterSK(counterContacts)), "pend", 0); err != nil {
		return nil, err
	}
	if stored := counted + onWallet; n != stored {
		// The wallet's part of the total stands: COUNT#CONTACT takes the
		// rest.
		if err := s.setCount(ctx, key(orgPK(orgID), counterSK(counterContacts)), "n", n-onWallet); err != nil {
			return nil, err
		}
		fixed = append(fixed, fmt.Sprintf("contacts: %d → %d", stored, n))
	}
	lists, err := s.queryPrefix(ctx, orgPK(orgID), listPrefix, true)
	if err != nil {
		return nil, err
	}
	for _, it := range lists {
		listID := strings.TrimPrefix(attrS(it, "SK"), listPrefix)
		ids, err := s.memberIDs(ctx, orgID, listID, -1)
		if err != nil {
			return nil, err
		}
		var l struct {
			ContactCount int64 `json:"contactCount"`
		}
		if err := unmarshal(it, &l); err != nil {
			return nil, err
		}
		if int64(len(ids)) != l.ContactCount {
			if err := s.setCount(ctx, key(orgPK(orgID), listSK(listID)), "contactCount", int64(len(ids))); err != nil {
				return nil, err
			}
			fixed = append(fixed, fmt.Sprintf("list %s: %d → %d", listID, l.ContactCount, len(ids)))
		}
	}
	return fixed, nil
}

// countQuery counts the items a query matches, following pages.
func (s *Store) countQuery(ctx context.Context, in *dynamodb.QueryInput) (int64, error) {
	in.Select = types.SelectCount
	var n int64
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return 0, fmt.Errorf("count: %w", err)
		}
		n += int64(out.Count)
	}
	return n, nil
}

// setCount sets the number attribute attr of the existing item k.
func (s *Store) setCount(ctx context.Context, k item, attr string, n int64) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table, Key: k,
		UpdateExpression:          aws.String("SET #a = :n"),
		ExpressionAttributeNames:  map[string]string{"#a": attr},
		ExpressionAttributeValues: item{":n": num(n)},
	})
	if err != nil {
		return fmt.Errorf("set %s: %w", attr, err)
	}
	return nil
}

// retryWait decides after a failed upgrade of a contact whether to read
// it again and retry: it waits and returns nil when the failure was a
// concurrent change (a failed version condition or a conflict) or
// throttling, and returns err otherwise or after too many attempts.
func (s *Store) retryWait(ctx context.Context, err error, attempt int) error {
	reasons := cancellationReasons(err)
	again := retryable(err) || isConditionFailed(err)
	for i := range reasons {
		if reasonCode(reasons, i) == "ConditionalCheckFailed" {
			again = true
		}
	}
	if !again || attempt >= maxAttempts {
		return err
	}
	return sleep(ctx, backoff(attempt))
}
